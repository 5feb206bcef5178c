// RFC 9110 §5.6.7: a recipient accepts all three HTTP-date forms, and a sender only generates the
// first. Every form is read by position, character by character: no regular expression meets
// request data here.
//   IMF-fixdate:  Sun, 06 Nov 1994 08:49:37 GMT
//   rfc850-date:  Sunday, 06-Nov-94 08:49:37 GMT
//   asctime-date: Sun Nov  6 08:49:37 1994

const monthNames = "JanFebMarAprMayJunJulAugSepOctNovDec";
const dayNames = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];

/**
 * The instant (ms since the epoch) an HTTP-date names, or `undefined` when `text` is none of the
 * three forms or names no real moment (a 31 November, hour 24, a weekday that is not that date's).
 *
 * @example
 * parseHttpDate("Sun, 06 Nov 1994 08:49:37 GMT"); // 784111777000
 * parseHttpDate("yesterday"); // undefined
 */
export function parseHttpDate(text: string): number | undefined {
  if (text.length === 29 && text[3] === ",") return imfFixdate(text);
  if (text.length === 24 && text[3] === " ") return asctimeDate(text);
  const comma = text.indexOf(",");
  if (comma >= 6 && comma <= 9) return rfc850Date(text, comma);
  return undefined;
}

/**
 * `ms` as an IMF-fixdate, the form HTTP senders use (`Last-Modified`, `Expires`).
 *
 * @example
 * formatHttpDate(784111777000); // "Sun, 06 Nov 1994 08:49:37 GMT"
 */
export function formatHttpDate(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toUTCString();
}

function imfFixdate(text: string): number | undefined {
  if (text[4] !== " " || text[7] !== " " || text[11] !== " " || text[16] !== " ") return undefined;
  if (!text.endsWith(" GMT")) return undefined;
  return build(
    text.slice(0, 3),
    digits(text, 12, 4),
    month(text, 8),
    digits(text, 5, 2),
    time(text, 17),
  );
}

function rfc850Date(text: string, comma: number): number | undefined {
  // weekday "," SP 2DIGIT "-" month "-" 2DIGIT SP time-of-day SP "GMT"
  const at = comma + 2;
  if (text.length !== at + 22 || text[comma + 1] !== " ") return undefined;
  if (text[at + 2] !== "-" || text[at + 6] !== "-" || text[at + 9] !== " ") return undefined;
  if (!text.endsWith(" GMT")) return undefined;
  const dayName = longDayName(text.slice(0, comma));
  const twoDigitYear = digits(text, at + 7, 2);
  if (dayName === undefined || twoDigitYear === undefined) return undefined;
  // RFC 9110 §5.6.7: a two-digit year more than 50 years in the future is in the past century.
  const thisYear = new Date().getUTCFullYear();
  let year = 2000 + twoDigitYear;
  if (year > thisYear + 50) year -= 100;
  return build(dayName, year, month(text, at + 3), digits(text, at, 2), time(text, at + 10));
}

function asctimeDate(text: string): number | undefined {
  // day-name SP month SP ( 2DIGIT / ( SP DIGIT ) ) SP time-of-day SP 4DIGIT
  if (text[7] !== " " || text[10] !== " " || text[19] !== " ") return undefined;
  const day = text[8] === " " ? digits(text, 9, 1) : digits(text, 8, 2);
  return build(text.slice(0, 3), digits(text, 20, 4), month(text, 4), day, time(text, 11));
}

function build(
  dayName: string,
  year: number | undefined,
  monthIndex: number | undefined,
  day: number | undefined,
  clock: readonly [number, number, number] | undefined,
): number | undefined {
  if (year === undefined || monthIndex === undefined || day === undefined || !clock) {
    return undefined;
  }
  const [hour, minute, second] = clock;
  if (hour > 23 || minute > 59 || second > 60) return undefined;
  const date = new Date(0);
  // setUTCFullYear, unlike Date.UTC, does not read years 0-99 as 1900-1999.
  date.setUTCFullYear(year, monthIndex, day);
  date.setUTCHours(hour, minute, Math.min(second, 59), 0);
  const exact = date.getUTCMonth() === monthIndex && date.getUTCDate() === day;
  if (!exact || dayNames[date.getUTCDay()] !== dayName) return undefined;
  return date.getTime();
}

function time(text: string, at: number): [number, number, number] | undefined {
  if (text[at + 2] !== ":" || text[at + 5] !== ":") return undefined;
  const hour = digits(text, at, 2);
  const minute = digits(text, at + 3, 2);
  const second = digits(text, at + 6, 2);
  if (hour === undefined || minute === undefined || second === undefined) return undefined;
  return [hour, minute, second];
}

function month(text: string, at: number): number | undefined {
  const index = monthNames.indexOf(text.slice(at, at + 3));
  return index >= 0 && index % 3 === 0 ? index / 3 : undefined;
}

function digits(text: string, at: number, count: number): number | undefined {
  let value = 0;
  for (let index = at; index < at + count; index++) {
    const code = text.charCodeAt(index);
    if (code < 0x30 || code > 0x39) return undefined;
    value = value * 10 + (code - 0x30);
  }
  return value;
}

const longDayNames = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];

function longDayName(name: string): string | undefined {
  const index = longDayNames.indexOf(name);
  return index < 0 ? undefined : dayNames[index];
}
