type Segments<Path extends string> = Path extends `${infer Head}/${infer Tail}`
  ? Head | Segments<Tail>
  : Path;

type CaptureName<Segment extends string> = Segment extends `:${infer Name}`
  ? Name
  : Segment extends `*${infer Name}`
    ? Name
    : never;

/**
 * The captures of a path pattern, typed from its literal: `"/users/:id/*rest"` gives
 * `{ id: string; rest: string }`, and a static path gives `{}`.
 *
 * @example
 * type Params = PathParams<"/users/:id">; // { id: string }
 */
export type PathParams<Path extends string> = {
  readonly [Name in CaptureName<Segments<Path>>]: string;
};
