/**
 * Go's time.Parse(time.RFC3339, s), as metav1.Time's UnmarshalJSON calls it, reduced to its error:
 * what the apiserver's decoder answers for a time field it cannot parse. The fast RFC 3339 path
 * accepts a subset of what the general layout parser (time/format.go `parse`) accepts, so the
 * general parser alone decides both acceptance and the message. It works on the UTF-8 bytes, as Go
 * does, and is lenient where Go is: a one-digit hour, a fraction after `,` or `.` of any length,
 * zone offsets up to +24:60.
 */

const layout = "2006-01-02T15:04:05Z07:00";

const hex = "0123456789abcdef";

/** time's own quote(): ASCII as is (`"` and `\` escaped), control and non-ASCII bytes as \xNN. */
function timeQuote(b: Uint8Array): string {
  let out = '"';
  for (const c of b) {
    if (c >= 0x80 || c < 0x20) out += "\\x" + hex[c >> 4]! + hex[c & 15]!;
    else {
      if (c === 0x22 || c === 0x5c) out += "\\";
      out += String.fromCharCode(c);
    }
  }
  return out + '"';
}

function isLeap(year: number): boolean {
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
}

const daysBefore = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function daysIn(month: number, year: number): number {
  if (month === 2 && isLeap(year)) return 29;
  return daysBefore[month - 1]!;
}

/** Days from 1970-01-01 to a proleptic Gregorian date (any year, unlike Date.UTC's 0–99). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  return era * 146097 + yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy - 719468;
}

/**
 * The error time.Parse(time.RFC3339, value) returns, as its Error() text, or undefined when the
 * value parses. E.g. `parsing time "2024-13-01T00:00:00Z": month out of range`.
 */
export function rfc3339ParseError(value: string): string | undefined {
  const r = parseRFC3339(value);
  return "error" in r ? r.error : undefined;
}

/**
 * time.Parse(time.RFC3339, value): its error text, or the instant's Time.Unix() (whole seconds,
 * the zone offset applied; the fraction does not change it).
 */
export function parseRFC3339(value: string): { error: string } | { unix: number } {
  const res = parseOrError(value);
  return typeof res === "string" ? { error: res } : res;
}

function parseOrError(value: string): string | { unix: number } {
  const v = new TextEncoder().encode(value);
  let i = 0;
  const whole = timeQuote(v);
  const cannotParse = (at: number, elem: string) =>
    `parsing time ${whole} as "${layout}": cannot parse ${timeQuote(v.subarray(at))} as "${elem}"`;
  const outOfRange = (what: string) => `parsing time ${whole}: ${what} out of range`;
  const isDigit = (k: number) => k < v.length && v[k]! >= 0x30 && v[k]! <= 0x39;
  const digit = (k: number) => v[k]! - 0x30;
  // skip(): the layout's literal text between two elements (one ASCII character here).
  const skip = (prefix: string): string | undefined => {
    if (v[i] !== prefix.charCodeAt(0)) return cannotParse(i, prefix);
    i++;
    return undefined;
  };
  // getnum(): one or two digits (two when fixed); undefined when there are none.
  const getnum = (fixed: boolean): number | undefined => {
    if (!isDigit(i)) return undefined;
    if (!isDigit(i + 1)) {
      if (fixed) return undefined;
      return digit(i++);
    }
    const n = digit(i) * 10 + digit(i + 1);
    i += 2;
    return n;
  };

  // 2006
  if (v.length - i < 4 || !isDigit(i)) return cannotParse(i, "2006");
  let year = 0;
  for (let k = i; k < i + 4; k++) {
    if (!isDigit(k)) return cannotParse(i, "2006");
    year = year * 10 + digit(k);
  }
  i += 4;
  // -01
  let err = skip("-");
  if (err) return err;
  let hold = i;
  const month = getnum(true);
  if (month === undefined) return cannotParse(hold, "01");
  if (month <= 0 || month > 12) return outOfRange("month");
  // -02: any day for now, checked against the month and year at the end
  err = skip("-");
  if (err) return err;
  hold = i;
  const day = getnum(true);
  if (day === undefined) return cannotParse(hold, "02");
  // T15
  err = skip("T");
  if (err) return err;
  hold = i;
  const hour = getnum(false);
  if (hour !== undefined && hour >= 24) return outOfRange("hour");
  if (hour === undefined) return cannotParse(hold, "15");
  // :04
  err = skip(":");
  if (err) return err;
  hold = i;
  const min = getnum(true);
  if (min !== undefined && min >= 60) return outOfRange("minute");
  if (min === undefined) return cannotParse(hold, "04");
  // :05, then a fraction the layout does not have: `.` or `,` and any number of digits
  err = skip(":");
  if (err) return err;
  hold = i;
  const sec = getnum(true);
  if (sec === undefined) return cannotParse(hold, "05");
  if (sec >= 60) return outOfRange("second");
  if ((v[i] === 0x2e || v[i] === 0x2c) && isDigit(i + 1)) {
    i += 2;
    while (isDigit(i)) i++;
  }
  // Z07:00: `Z`, or a sign, two digits, `:` and two digits
  hold = i;
  let offset = 0;
  if (v[i] === 0x5a) i++;
  else {
    if (v.length - i < 6 || v[i + 3] !== 0x3a) return cannotParse(hold, "Z07:00");
    const two = (k: number) =>
      isDigit(k) && isDigit(k + 1) ? digit(k) * 10 + digit(k + 1) : undefined;
    const sign = v[i];
    const hr = two(i + 1);
    const mm = hr === undefined ? undefined : two(i + 4);
    i += 6;
    // Go tests the ranges first (> rather than >=: offsets of 24 hours or 60 minutes pass), the
    // minute last, so it wins; a bad sign or digit only after them.
    let range = "";
    if (hr !== undefined && hr > 24) range = "time zone offset hour";
    if (mm !== undefined && mm > 60) range = "time zone offset minute";
    if (range) return outOfRange(range);
    if (hr === undefined || mm === undefined || (sign !== 0x2b && sign !== 0x2d))
      return cannotParse(hold, "Z07:00");
    offset = (sign === 0x2d ? -1 : 1) * (hr * 60 + mm) * 60;
  }
  if (i < v.length) return `parsing time ${whole}: extra text: ${timeQuote(v.subarray(i))}`;
  if (day < 1 || day > daysIn(month, year)) return outOfRange("day");
  return { unix: daysFromCivil(year, month, day) * 86400 + hour * 3600 + min * 60 + sec - offset };
}
