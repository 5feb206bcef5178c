/** How much of a format a message quotes: enough to recognise the call. */
const quotedFormatLength = 60;

/**
 * Formats `{}` placeholders with `values` in order: strings as they are, everything else with
 * `String()`; `{{` and `}}` are literal braces. A count mismatch, or a brace that is neither,
 * is a `TypeError` that says which (a lone `{name}` would otherwise print as it is).
 *
 * @example
 * formatText("{} of {} done", [3, 10]); // "3 of 10 done"
 */
export function formatText(format: string, values: readonly unknown[]): string {
  let output = "";
  let placeholders = 0;
  for (let index = 0; index < format.length; index++) {
    const character = format[index];
    const following = format[index + 1];
    if (character === "{" && following === "{") {
      output += "{";
      index++;
    } else if (character === "}" && following === "}") {
      output += "}";
      index++;
    } else if (character === "{" && following === "}") {
      if (placeholders < values.length) output += String(values[placeholders]);
      placeholders++;
      index++;
    } else if (character === "{" || character === "}") {
      throw new TypeError(
        `corral: print format ${quote(format)} has a lone "${character}" at index ${index}: a ` +
          'placeholder is "{}", a literal brace is "{{" or "}}"',
      );
    } else {
      output += character;
    }
  }
  if (placeholders !== values.length) {
    throw new TypeError(
      `corral: print format ${quote(format)} has ${count(placeholders, "placeholder")} but ` +
        `${count(values.length, "value")}`,
    );
  }
  return output;
}

function quote(format: string): string {
  const shown =
    format.length > quotedFormatLength ? `${format.slice(0, quotedFormatLength)}…` : format;
  return JSON.stringify(shown);
}

function count(amount: number, noun: string): string {
  return `${amount} ${noun}${amount === 1 ? "" : "s"}`;
}
