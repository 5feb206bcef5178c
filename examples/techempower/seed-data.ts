/** TechEmpower's `World` table has 10,000 rows, ids 1..10000. */
export const worldRowCount = 10_000;

/** A row of `World`. The JSON names are TechEmpower's: `{"id":1,"randomNumber":42}`. */
export interface World {
  readonly id: number;
  randomNumber: number;
}

/** A row of `Fortune`. */
export interface Fortune {
  readonly id: number;
  readonly message: string;
}

/**
 * The 12 rows of TechEmpower's `Fortune` table (toolset/databases/*\/create*.sql), the `<script>`
 * row and the Japanese row included: the first tests escaping, the second UTF-8 end to end.
 */
export const fortuneRows: readonly Fortune[] = [
  { id: 1, message: "fortune: No such file or directory" },
  { id: 2, message: "A computer scientist is someone who fixes things that aren't broken." },
  { id: 3, message: "After enough decimal places, nobody gives a damn." },
  { id: 4, message: "A bad random number generator: 1, 1, 1, 1, 1, 4.33e+67, 1, 1, 1" },
  { id: 5, message: "A computer program does what you tell it to do, not what you want it to do." },
  { id: 6, message: "Emacs is a nice operating system, but I prefer UNIX. — Tom Christaensen" },
  { id: 7, message: "Any program that runs right is obsolete." },
  { id: 8, message: "A list is only as strong as its weakest link. — Donald Knuth" },
  { id: 9, message: "Feature: A bug with seniority." },
  { id: 10, message: "Computers make very fast, very accurate mistakes." },
  {
    id: 11,
    message: '<script>alert("This should not be displayed in a browser alert box.");</script>',
  },
  { id: 12, message: "フレームワークのベンチマーク" },
];

/** A random World id or randomNumber: a whole number from 1 to 10,000. */
export function randomWorldNumber(): number {
  return 1 + Math.floor(Math.random() * worldRowCount);
}
