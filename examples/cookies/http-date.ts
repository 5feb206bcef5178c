// RFC 9110 §5.6.7: IMF-fixdate = day-name "," SP date1 SP time-of-day SP "GMT", e.g.
// "Sun, 06 Nov 1994 08:49:37 GMT". It is the one HTTP-date form a sender generates; the two
// obsolete forms (rfc850-date, asctime-date) are not accepted in this example's own parameter.
const imfFixdate =
  /^(Sun|Mon|Tue|Wed|Thu|Fri|Sat), (\d{2}) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) (\d{4}) (\d{2}):(\d{2}):(\d{2}) GMT$/;
const dayNames = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
const monthNames = [
  "Jan",
  "Feb",
  "Mar",
  "Apr",
  "May",
  "Jun",
  "Jul",
  "Aug",
  "Sep",
  "Oct",
  "Nov",
  "Dec",
];

/**
 * The instant an IMF-fixdate names, or `undefined` when `text` is not one or names no real
 * moment: a day past the month's end, hour 24, or a day name that is not that date's weekday.
 */
export function parseImfFixdate(text: string): Date | undefined {
  const match = imfFixdate.exec(text);
  if (match === null) return undefined;
  const [, dayName, day, monthName, year, hour, minute, second] = match;
  const month = monthNames.indexOf(monthName!);
  // setUTCFullYear, unlike Date.UTC, does not read years 0-99 as 1900-1999.
  const date = new Date(0);
  date.setUTCFullYear(Number(year), month, Number(day));
  date.setUTCHours(Number(hour), Number(minute), Number(second), 0);
  const exact =
    date.getUTCFullYear() === Number(year) &&
    date.getUTCMonth() === month &&
    date.getUTCDate() === Number(day) &&
    date.getUTCHours() === Number(hour) &&
    date.getUTCMinutes() === Number(minute) &&
    date.getUTCSeconds() === Number(second) &&
    dayNames[date.getUTCDay()] === dayName;
  return exact ? date : undefined;
}
