/**
 * One catalogue item. Ids are text (`"007"` is not `"7"`); the price is exact decimal text next to
 * the same amount in whole cents, so no client has to trust a binary float with money.
 *
 * @example
 * const item: Item = {
 *   id: "mug", name: "Mug", price: "8.00", priceCents: 800, currency: "EUR", stock: 40,
 * };
 */
export interface Item {
  readonly id: string;
  readonly name: string;
  readonly price: string;
  readonly priceCents: number;
  readonly currency: "EUR";
  readonly stock: number;
  /** Free text; on the two boundary items it pads the JSON to an exact size. */
  readonly note?: string;
}

/**
 * The byte length of `value` as `JSON.stringify` and UTF-8 make it: what it takes in staging.
 *
 * @example
 * jsonByteLength({ name: "Café" }); // 16: "é" takes two bytes
 */
export function jsonByteLength(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value));
}

/**
 * `item` with a `note` of `~` padding so that its JSON is exactly `bytes` long. Throws a
 * `RangeError` when the item without padding is already longer.
 *
 * @example
 * jsonByteLength(padToJsonBytes(poster, 1024)); // 1024
 */
export function padToJsonBytes(item: Item, bytes: number): Item {
  const bare = jsonByteLength({ ...item, note: "" });
  if (bare > bytes) {
    throw new RangeError(`json-lookup: item ${item.id} takes ${bare} bytes, over ${bytes}`);
  }
  return { ...item, note: "~".repeat(bytes - bare) };
}

function item(id: string, name: string, priceCents: number, stock: number): Item {
  const price = `${Math.trunc(priceCents / 100)}.${String(priceCents % 100).padStart(2, "0")}`;
  return { id, name, price, priceCents, currency: "EUR", stock };
}

/**
 * The example's dataset, built once at startup: a dozen tea-shop items, then two posters whose
 * JSON is exactly `stagingBytes` (`at-limit`, served) and one byte more (`over-limit`, refused),
 * so the response bound can be seen from a plain `curl`.
 *
 * @example
 * const items = createCatalogue(1024);
 * items.find((entry) => entry.id === "at-limit"); // its JSON is 1024 bytes
 */
export function createCatalogue(stagingBytes: number): Item[] {
  return [
    item("kettle", "Kettle", 3490, 12),
    item("teapot", "Teapot", 2450, 7),
    item("mug", "Mug", 800, 40),
    item("cup-and-saucer", "Cup and saucer", 1200, 18),
    item("tea-tin", "Tea tin", 675, 25),
    item("infuser", "Infuser", 420, 60),
    item("café-filter", "Café filter, 100 pieces", 310, 33),
    item("sencha", "Sencha, 100 g", 980, 15),
    item("earl-grey", "Earl Grey, 100 g", 740, 21),
    item("matcha", "Matcha, 30 g", 1500, 9),
    item("tea-towel", "Tea towel", 550, 14),
    item("007", "Gift card № 007", 2500, 100),
    padToJsonBytes(item("at-limit", "Poster: exactly at the staging limit", 1900, 3), stagingBytes),
    padToJsonBytes(
      item("over-limit", "Poster: one byte over the limit", 1900, 3),
      stagingBytes + 1,
    ),
  ];
}
