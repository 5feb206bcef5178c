/**
 * Formats `{}` placeholders with `values` in order: strings as they are, everything else with
 * `String()`; `{{` and `}}` are literal braces. A count mismatch is a `TypeError`.
 *
 * @example
 * formatText("{} of {} done", [3, 10]); // "3 of 10 done"
 */
export function formatText(format: string, values: readonly unknown[]): string {
  let output = "";
  let next = 0;
  for (let index = 0; index < format.length; index++) {
    const character = format[index];
    if (character === "{" && format[index + 1] === "{") {
      output += "{";
      index++;
    } else if (character === "}" && format[index + 1] === "}") {
      output += "}";
      index++;
    } else if (character === "{" && format[index + 1] === "}") {
      if (next >= values.length) throw new TypeError("corral: print() has more {} than values");
      output += String(values[next++]);
      index++;
    } else {
      output += character;
    }
  }
  if (next !== values.length) throw new TypeError("corral: print() has more values than {}");
  return output;
}
