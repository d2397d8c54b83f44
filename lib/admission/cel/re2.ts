/**
 * CEL's `matches` uses Go's regexp (RE2 syntax, matching on Unicode code points); JavaScript's
 * RegExp differs in syntax and in what `.`, `\s` and `\pL` mean. This module reads an RE2 pattern
 * and either translates it to an equivalent JavaScript RegExp (flag `u`, so it matches code
 * points as Go does), or says the pattern is invalid in RE2 (what `regexp.Compile` refuses, so the
 * apiserver refuses it too), or says it cannot translate it faithfully — then the caller must not
 * guess. Only constructs whose RE2 meaning is certain are translated. Validity follows Go's
 * regexp/syntax parser rule by rule (escapes, Unicode class names, named groups, flags), read to
 * the end even past an untranslatable construct: "unsupported" is only ever a pattern Go accepts.
 */

export type Re2Result =
  /**
   * `repetitions`: how many repetition operators the pattern has; `anchored`: whether every match
   * must start at the subject's start (JavaScript then tries no other start).
   */
  | { kind: "ok"; regex: RegExp; repetitions: number; anchored: boolean }
  | { kind: "invalid"; reason: string }
  | { kind: "unsupported"; reason: string };

/**
 * The Unicode class names Go's regexp/syntax knows (unicodeTable in parse.go, with the tables of
 * Go 1.26's package unicode, Unicode 15.0.0, as the apiserver is built): general categories,
 * scripts, and the categories' long aliases. Go looks a name up by its canonical form (see
 * canonicalName), so a script whose name has an underscore or a second capital (`Old_Italic`,
 * `SignWriting`) is never found: Go refuses it, and so is it refused here.
 */
const GO_CATEGORIES = new Set(
  (
    "C Cc Cf Cn Co Cs L LC Ll Lm Lo Lt Lu M Mc Me Mn N Nd Nl No P Pc Pd Pe Pf Pi Po Ps " +
    "S Sc Sk Sm So Z Zl Zp Zs"
  ).split(" "),
);
const GO_SCRIPTS = new Set(
  (
    "Adlam Ahom Anatolian_Hieroglyphs Arabic Armenian Avestan Balinese Bamum Bassa_Vah Batak " +
    "Bengali Bhaiksuki Bopomofo Brahmi Braille Buginese Buhid Canadian_Aboriginal Carian " +
    "Caucasian_Albanian Chakma Cham Cherokee Chorasmian Common Coptic Cuneiform Cypriot " +
    "Cypro_Minoan Cyrillic Deseret Devanagari Dives_Akuru Dogra Duployan Egyptian_Hieroglyphs " +
    "Elbasan Elymaic Ethiopic Georgian Glagolitic Gothic Grantha Greek Gujarati Gunjala_Gondi " +
    "Gurmukhi Han Hangul Hanifi_Rohingya Hanunoo Hatran Hebrew Hiragana Imperial_Aramaic " +
    "Inherited Inscriptional_Pahlavi Inscriptional_Parthian Javanese Kaithi Kannada Katakana " +
    "Kawi Kayah_Li Kharoshthi Khitan_Small_Script Khmer Khojki Khudawadi Lao Latin Lepcha Limbu " +
    "Linear_A Linear_B Lisu Lycian Lydian Mahajani Makasar Malayalam Mandaic Manichaean Marchen " +
    "Masaram_Gondi Medefaidrin Meetei_Mayek Mende_Kikakui Meroitic_Cursive Meroitic_Hieroglyphs " +
    "Miao Modi Mongolian Mro Multani Myanmar Nabataean Nag_Mundari Nandinagari New_Tai_Lue Newa " +
    "Nko Nushu Nyiakeng_Puachue_Hmong Ogham Ol_Chiki Old_Hungarian Old_Italic Old_North_Arabian " +
    "Old_Permic Old_Persian Old_Sogdian Old_South_Arabian Old_Turkic Old_Uyghur Oriya Osage " +
    "Osmanya Pahawh_Hmong Palmyrene Pau_Cin_Hau Phags_Pa Phoenician Psalter_Pahlavi Rejang " +
    "Runic Samaritan Saurashtra Sharada Shavian Siddham SignWriting Sinhala Sogdian " +
    "Sora_Sompeng Soyombo Sundanese Syloti_Nagri Syriac Tagalog Tagbanwa Tai_Le Tai_Tham " +
    "Tai_Viet Takri Tamil Tangsa Tangut Telugu Thaana Thai Tibetan Tifinagh Tirhuta Toto " +
    "Ugaritic Vai Vithkuqi Wancho Warang_Citi Yezidi Yi Zanabazar_Square"
  ).split(" "),
);
/** unicode.CategoryAliases, keyed by canonical name as Go keys them. */
const GO_CATEGORY_ALIASES = new Map(
  Object.entries({
    Cased_Letter: "LC",
    Close_Punctuation: "Pe",
    Combining_Mark: "M",
    Connector_Punctuation: "Pc",
    Control: "Cc",
    Currency_Symbol: "Sc",
    Dash_Punctuation: "Pd",
    Decimal_Number: "Nd",
    Enclosing_Mark: "Me",
    Final_Punctuation: "Pf",
    Format: "Cf",
    Initial_Punctuation: "Pi",
    Letter: "L",
    Letter_Number: "Nl",
    Line_Separator: "Zl",
    Lowercase_Letter: "Ll",
    Mark: "M",
    Math_Symbol: "Sm",
    Modifier_Letter: "Lm",
    Modifier_Symbol: "Sk",
    Nonspacing_Mark: "Mn",
    Number: "N",
    Open_Punctuation: "Ps",
    Other: "C",
    Other_Letter: "Lo",
    Other_Number: "No",
    Other_Punctuation: "Po",
    Other_Symbol: "So",
    Paragraph_Separator: "Zp",
    Private_Use: "Co",
    Punctuation: "P",
    Separator: "Z",
    Space_Separator: "Zs",
    Spacing_Mark: "Mc",
    Surrogate: "Cs",
    Symbol: "S",
    Titlecase_Letter: "Lt",
    Unassigned: "Cn",
    Uppercase_Letter: "Lu",
    cntrl: "Cc",
    digit: "Nd",
    punct: "P",
  }).map(([name, category]) => [canonicalName(name), category]),
);

/**
 * Go's canonicalName: underscores, spaces and hyphens dropped, the first letter upper case and
 * every later one lower case (byte by byte: other characters are kept as they are).
 */
function canonicalName(name: string): string {
  let out = "";
  let first = true;
  for (const c of name) {
    if (c === "_" || c === "-" || c === " ") continue;
    if (first) {
      first = false;
      out += c >= "a" && c <= "z" ? c.toUpperCase() : c;
    } else out += c >= "A" && c <= "Z" ? c.toLowerCase() : c;
  }
  return out;
}

/**
 * What a `\p` name means to Go (unicodeTable): the JavaScript property for it (undefined for
 * Any, which has none), whether Go negates the table (Assigned is "not Cn"), or null when Go does
 * not know the name.
 */
function goUnicodeClass(name: string): { property: string | undefined; negated: boolean } | null {
  const c = canonicalName(name);
  if (c === "Any") return { property: undefined, negated: false };
  if (c === "Assigned") return { property: "Cn", negated: true };
  if (c === "Ascii") return { property: "ASCII", negated: false };
  if (c === "Lc") return { property: "LC", negated: false };
  if (GO_CATEGORIES.has(c)) return { property: c, negated: false };
  if (GO_SCRIPTS.has(c)) return { property: `Script=${c}`, negated: false };
  const alias = GO_CATEGORY_ALIASES.get(c);
  return alias === undefined ? null : { property: alias, negated: false };
}

/** RE2's ASCII classes (`[[:alpha:]]`), as JavaScript class contents. */
const POSIX: Record<string, string> = {
  alnum: "0-9A-Za-z",
  alpha: "A-Za-z",
  ascii: "\\x00-\\x7f",
  blank: "\\t ",
  cntrl: "\\x00-\\x1f\\x7f",
  digit: "0-9",
  graph: "!-~",
  lower: "a-z",
  print: " -~",
  punct: "!-\\/:-@\\[-`{-~",
  space: "\\t\\n\\v\\f\\r ",
  upper: "A-Z",
  word: "0-9A-Za-z_",
  xdigit: "0-9A-Fa-f",
};

/** RE2's Perl classes are ASCII-only; JavaScript's `\s` also matches \v and Unicode spaces. */
const PERL: Record<string, string> = {
  d: "0-9",
  s: "\\t\\n\\f\\r ",
  w: "0-9A-Za-z_",
};

/** What regexp.Compile refuses: Go's error code and the part of the pattern it quotes. */
class Invalid extends Error {
  constructor(code: string, expr: string) {
    super(`${code}: \`${expr}\``);
  }
}

const isOctal = (c: string | undefined) => c !== undefined && c >= "0" && c <= "7";
const isAlnum = (c: string) => /^[0-9A-Za-z]$/.test(c);

/** A literal code point written so it means itself inside or outside a class (flag u). */
function literal(cp: number): string {
  return cp < 0x80 && !/[0-9A-Za-z_ ]/.test(String.fromCodePoint(cp))
    ? `\\x${cp.toString(16).padStart(2, "0")}`
    : cp > 0xffff || cp < 0x20
      ? `\\u{${cp.toString(16)}}`
      : String.fromCodePoint(cp);
}

/** A repeat count (`{min,max}`, max -1 when open) and those nested in what it repeats. */
interface Repeat {
  min: number;
  max: number;
  sub: Repeat[];
}

/**
 * Go's repeatIsValid(re, 1000): along every path of nested repeat counts, each count (its max, or
 * its min when open; `{0}` ends the path) fits in what the counts around it leave of 1000 copies.
 */
function repeatIsValid(root: Repeat): boolean {
  const stack: Array<[Repeat, number]> = [[root, 1000]];
  while (stack.length > 0) {
    const [r, budget] = stack.pop() as [Repeat, number];
    if (r.max === 0) continue;
    const m = r.max < 0 ? r.min : r.max;
    if (m > budget) return false;
    const left = m > 0 ? Math.floor(budget / m) : budget;
    for (const s of r.sub) stack.push([s, left]);
  }
  return true;
}

/**
 * What stands on top of Go's parse stack, which a repetition operator repeats: nothing (the
 * pattern's or a group's start, or after `|`), a character, class or group, an anchor (`^`, `\b`),
 * or a repetition (reached again only past a flag group, `a*(?i)*`).
 */
type Top = "none" | "atom" | "anchor" | "repeat";

/**
 * Reads a pattern left to right as Go's regexp/syntax parser does (parse in parse.go) and writes
 * the JavaScript equivalent. Go's errors are thrown as Invalid, the first one met, as Go stops
 * there. A construct Go accepts but this module cannot translate is noted (`unsupported`) and
 * reading goes on, so that a later error Go refuses the pattern for is still found.
 */
class Translator {
  private i = 0;
  private out = "";
  private depth = 0;
  private top: Top = "none";
  /** Per open group: whether it repeats or alternates inside. */
  private readonly groups: boolean[] = [];
  /** Whether the last thing written is a group that repeats or alternates inside. */
  private riskyGroup = false;
  repetitions = 0;
  /** Whether an alternation `|` stands outside every group. */
  topLevelAlternation = false;
  /** Why the pattern, valid in Go, cannot be translated: the first such construct. */
  unsupported: string | undefined;
  private readonly chars: string[];
  /** Where the repetition operator just read starts, when the last token was one. */
  private lastRepeat: number | undefined;
  /**
   * Per open group (and the pattern): each thing read in it, as the repeat counts it holds
   * outermost (Go's parse stack, as far as repeatIsValid reads it).
   */
  private readonly items: Repeat[][][] = [[]];

  /** `whole`: the pattern as written (with any leading flags), which some errors quote. */
  constructor(
    pattern: string,
    private readonly dotAll: boolean,
    private readonly whole: string,
  ) {
    this.chars = Array.from(pattern);
  }

  private text(from: number, to = this.chars.length): string {
    return this.chars.slice(from, to).join("");
  }

  private peek(k = 0): string | undefined {
    return this.chars[this.i + k];
  }

  /** The thing just read is on top of Go's stack now, with the repeat counts it holds. */
  private push(top: "atom" | "anchor", repeats: Repeat[] = []): void {
    this.top = top;
    this.items[this.items.length - 1]?.push(repeats);
  }

  private unsupportedBecause(reason: string): void {
    this.unsupported ??= reason;
  }

  run(): string {
    while (this.i < this.chars.length) this.step();
    if (this.depth > 0) throw new Invalid("missing closing )", this.whole);
    return this.out;
  }

  private step(): void {
    const c = this.chars[this.i++] as string;
    if (c !== "*" && c !== "+" && c !== "?" && c !== "{") {
      this.riskyGroup = false;
      this.lastRepeat = undefined;
    }
    switch (c) {
      case "\\":
        this.escape();
        return;
      case "[":
        this.out += this.charClass();
        this.push("atom");
        return;
      case "(":
        this.group();
        return;
      case ")":
        if (this.depth === 0) throw new Invalid("unexpected )", this.whole);
        this.depth--;
        this.riskyGroup = this.groups.pop() ?? false;
        // What a group holds, its enclosing group holds too: ((a|aa))* is as risky as (a|aa)*.
        if (this.riskyGroup && this.groups.length > 0) this.groups[this.groups.length - 1] = true;
        this.out += ")";
        this.push("atom", (this.items.pop() ?? []).flat());
        return;
      case "|":
        if (this.groups.length > 0) this.groups[this.groups.length - 1] = true;
        else this.topLevelAlternation = true;
        this.out += "|";
        this.top = "none";
        return;
      case "*":
      case "+":
      case "?":
        this.repeat(c, this.i - 1);
        return;
      case "{": {
        // Go's parseRepeat: decimal numbers without leading zeros; anything else is a literal `{`.
        const m = /^\{(0|[1-9]\d*)(,(0|[1-9]\d*)?)?\}/.exec(this.text(this.i - 1));
        if (!m) {
          this.out += "\\{";
          this.push("atom");
          this.riskyGroup = false;
          this.lastRepeat = undefined;
          return;
        }
        const min = Number(m[1]);
        const max = m[3] === undefined ? (m[2] === undefined ? min : -1) : Number(m[3]);
        if (min > 1000 || max > 1000 || (max >= 0 && min > max))
          throw new Invalid("invalid repeat count", m[0]);
        this.i += m[0].length - 1;
        this.repeat(m[0], this.i - m[0].length, { min, max });
        return;
      }
      case ".":
        this.out += this.dotAll ? "[\\s\\S]" : "[^\\n]";
        this.push("atom");
        return;
      case "^":
      case "$":
        this.out += c;
        this.push("anchor");
        return;
      default:
        this.out += literal(c.codePointAt(0) as number);
        this.push("atom");
    }
  }

  /**
   * A repetition operator `op` read from `start`; a `?` after it (non-greedy) is part of it.
   * `counts`: a repeat count's numbers (`{min,max}`, max -1 when open).
   */
  private repeat(op: string, start: number, counts?: { min: number; max: number }): void {
    const end = this.peek() === "?" ? this.i + 1 : this.i;
    // Go quotes from the previous operator (`a**`: "**"), or the operator with its `?`.
    if (this.lastRepeat !== undefined)
      throw new Invalid("invalid nested repetition operator", this.text(this.lastRepeat, end));
    if (this.top === "none")
      throw new Invalid("missing argument to repetition operator", this.text(start, end));
    // Go repeats an anchor (`^*`) or, past a flag group, a repetition; JavaScript refuses both.
    if (this.top === "anchor") this.unsupportedBecause("a repeated anchor");
    if (this.top === "repeat") this.unsupportedBecause("a repeated repetition");
    // Go's repeatIsValid: repeat counts nested in one another may not exceed 1000 copies.
    const level = this.items[this.items.length - 1] as Repeat[][];
    let repeats = level.pop() ?? [];
    if (counts) {
      const node = { ...counts, sub: repeats };
      if ((counts.min >= 2 || counts.max >= 2) && !repeatIsValid(node))
        throw new Invalid("invalid repeat count", this.text(start, end));
      repeats = [node];
    }
    level.push(repeats);
    // RE2 runs in linear time; JavaScript backtracks, exponentially for a repeated group that
    // itself repeats or alternates (`(a+)+`, `(a|aa)*`) on a long enough subject: not translated.
    // (`?`, `{0,1}` and `{1}` repeat nothing: `(-[a-z]+)?` is safe.)
    const once = op === "?" || /^\{[01](,1)?\}$/.test(op);
    if (this.riskyGroup && !once)
      this.unsupportedBecause("a repeated group that repeats or alternates inside (backtracking)");
    if (this.groups.length > 0) this.groups[this.groups.length - 1] = true;
    this.repetitions++;
    this.out += op;
    if (this.peek() === "?") {
      this.out += "?";
      this.i++;
    }
    this.top = "repeat";
    this.lastRepeat = start;
  }

  private openGroup(js: string): void {
    this.groups.push(false);
    this.items.push([]);
    this.out += js;
    this.depth++;
    this.top = "none";
  }

  /** After `(`: a group, or Go's parsePerlFlags for `(?`. */
  private group(): void {
    if (this.peek() !== "?") {
      this.openGroup("(");
      return;
    }
    const open = this.i - 1;
    // Named captures: `(?P<name>` and `(?<name>`, the name up to the first `>` anywhere after.
    const p = this.peek(1) === "P" && this.peek(2) === "<" && this.peek(3) !== undefined;
    if (p || (this.peek(1) === "<" && this.peek(2) !== undefined)) {
      const close = this.chars.indexOf(">", this.i);
      if (close < 0) throw new Invalid("invalid named capture", this.text(open));
      const name = this.text(this.i + (p ? 3 : 2), close);
      if (!/^[0-9A-Za-z_]+$/.test(name))
        throw new Invalid("invalid named capture", this.text(open, close + 1));
      this.i = close + 1;
      // Captured under no name: JavaScript's rules for names (no leading digit, no duplicate)
      // are not Go's, and a match needs no name.
      this.openGroup("(");
      return;
    }
    // Flags, then `:` (a group) or `)` (for the rest of the enclosing group); a `-` negates the
    // flags after it, and must be followed by one.
    this.i++;
    let flags = "";
    let negated = false;
    let sawFlag = false;
    for (;;) {
      const c = this.chars[this.i++];
      if (c === "i" || c === "m" || c === "s" || c === "U") {
        flags += c;
        sawFlag = true;
      } else if (c === "-" && !negated) {
        flags += c;
        negated = true;
        sawFlag = false;
      } else if ((c === ":" || c === ")") && !(negated && !sawFlag)) {
        if (c === ":" && flags === "") this.openGroup("(?:");
        else if (c === ":") {
          this.unsupportedBecause("flags scoped to a group");
          this.openGroup("(?:");
        } else this.unsupportedBecause("flags inside the pattern");
        return;
      } else
        throw new Invalid(
          "invalid or unsupported Perl syntax",
          this.text(open, Math.min(this.i, this.chars.length)),
        );
    }
  }

  /** After a backslash outside a class (the parse loop's `\` case). */
  private escape(): void {
    const start = this.i - 1;
    const c = this.peek();
    switch (c) {
      case "A":
      case "z":
      case "b":
      case "B":
        this.i++;
        this.out += c === "A" ? "^" : c === "z" ? "$" : `\\${c}`;
        this.push("anchor");
        return;
      case "C":
        // Any byte: Go refuses it.
        throw new Invalid("invalid escape sequence", "\\C");
      case "Q": {
        // Literal text up to `\E` or the end; a repetition after it repeats its last character.
        this.i++;
        let end = this.i;
        while (
          end < this.chars.length &&
          !(this.chars[end] === "\\" && this.chars[end + 1] === "E")
        )
          end++;
        for (const ch of this.chars.slice(this.i, end)) {
          this.out += literal(ch.codePointAt(0) as number);
          this.push("atom");
        }
        this.i = Math.min(end + 2, this.chars.length);
        return;
      }
      case "p":
      case "P":
        this.i++;
        this.out += this.property(c === "P", false, start);
        this.push("atom");
        return;
      case "d":
      case "s":
      case "w":
        this.i++;
        this.out += `[${PERL[c] as string}]`;
        this.push("atom");
        return;
      case "D":
      case "S":
      case "W":
        this.i++;
        this.out += `[^${PERL[c.toLowerCase()] as string}]`;
        this.push("atom");
        return;
    }
    this.out += literal(this.parseEscape(start));
    this.push("atom");
  }

  /**
   * Go's parseEscape, from the backslash at `start` (this.i is after it): the code point of a
   * single-character escape. Refused as Go refuses it, quoting from the backslash to the character
   * it stopped at: a back-reference (`\1` to `\9` not followed by an octal digit), an escaped
   * letter or digit Go gives no meaning (`\Z`, `\e`, `\c`, `\8`), any escaped non-ASCII character.
   */
  private parseEscape(start: number): number {
    const c = this.chars[this.i++];
    if (c === undefined) throw new Invalid("trailing backslash at end of expression", "");
    const bad = () => new Invalid("invalid escape sequence", this.text(start, this.i));
    const cp = c.codePointAt(0) as number;
    // Escaped non-word ASCII characters are themselves (`\.`, `\ `, `\_`).
    if (cp < 0x80 && !isAlnum(c)) return cp;
    if ((c >= "1" && c <= "7" && isOctal(this.peek())) || c === "0") {
      // Octal: up to three digits.
      let v = cp - 0x30;
      for (let k = 1; k < 3 && isOctal(this.peek()); k++)
        v = v * 8 + ((this.chars[this.i++] as string).codePointAt(0) as number) - 0x30;
      return v;
    }
    switch (c) {
      case "x":
        return this.hexEscape(start);
      case "a":
        return 7;
      case "f":
        return 12;
      case "n":
        return 10;
      case "r":
        return 13;
      case "t":
        return 9;
      case "v":
        return 11;
      default:
        throw bad();
    }
  }

  /**
   * After `\x`: the code point of `\xHH` or `\x{H…}`. Refused as Go's parseEscape refuses it,
   * quoting from the backslash to the character it stopped at.
   */
  private hexEscape(start: number): number {
    const bad = () => new Invalid("invalid escape sequence", this.text(start, this.i));
    const hex = (c: string | undefined) => (c !== undefined && /^[0-9A-Fa-f]$/.test(c) ? c : "");
    if (this.peek() === "{") {
      this.i++;
      let cp = 0;
      let digits = 0;
      for (;;) {
        const c = this.chars[this.i];
        if (c === undefined) throw bad();
        this.i++;
        if (c === "}") break;
        if (!hex(c)) throw bad();
        cp = cp * 16 + parseInt(c, 16);
        if (cp > 0x10ffff) throw bad();
        digits++;
      }
      if (digits === 0) throw bad();
      return cp;
    }
    const x = this.chars[this.i];
    if (x !== undefined) this.i++;
    const y = this.chars[this.i];
    if (x !== undefined && y !== undefined) this.i++;
    if (!hex(x) || !hex(y)) throw bad();
    return parseInt(`${x}${y}`, 16);
  }

  /**
   * After `\p` or `\P` (the backslash at `start`): Go's parseUnicodeClass. The name is one
   * character, or what stands in braces; a leading `^` negates it. Refused when the brace never
   * closes or Go does not know the name, quoting the whole `\p…`.
   */
  private property(negated: boolean, inClass: boolean, start: number): string {
    let name: string;
    if (this.peek() === "{") {
      const end = this.chars.indexOf("}", this.i);
      if (end < 0) throw new Invalid("invalid character class range", this.text(start));
      name = this.text(this.i + 1, end);
      this.i = end + 1;
    } else {
      name = this.chars[this.i] ?? "";
      if (this.i < this.chars.length) this.i++;
    }
    if (name.startsWith("^")) {
      negated = !negated;
      name = name.slice(1);
    }
    const cls = goUnicodeClass(name);
    if (cls === null) throw new Invalid("invalid character class range", this.text(start, this.i));
    if (cls.negated) negated = !negated;
    if (cls.property === undefined) {
      if (negated) {
        this.unsupportedBecause("\\P{Any}");
        return inClass ? "" : "[]";
      }
      return inClass ? "\\u{0}-\\u{10ffff}" : "[\\u{0}-\\u{10ffff}]";
    }
    try {
      new RegExp(`\\p{${cls.property}}`, "u");
    } catch {
      this.unsupportedBecause(`Unicode class ${name} (unknown to JavaScript)`);
    }
    return `\\${negated ? "P" : "p"}{${cls.property}}`;
  }

  /** After `[`: the whole class (Go's parseClass). */
  private charClass(): string {
    // Go quotes a class that never closes from its `[` to the pattern's end.
    const open = this.i - 1;
    let out = "[";
    if (this.peek() === "^") {
      out += "^";
      this.i++;
    }
    // RE2: a `]` right after `[` or `[^` is a literal.
    let first = true;
    for (;;) {
      const c = this.chars[this.i];
      if (c === undefined) throw new Invalid("missing closing ]", this.text(open));
      if (c === "]" && !first) {
        this.i++;
        break;
      }
      first = false;
      if (c === "[" && this.peek(1) === ":" && this.peek(2) !== undefined) {
        // Go takes `[:` up to the next `:]` anywhere after it as a POSIX class name.
        let k = this.i + 2;
        while (k + 1 < this.chars.length && !(this.chars[k] === ":" && this.chars[k + 1] === "]"))
          k++;
        if (k + 1 < this.chars.length) {
          const name = this.text(this.i, k + 2);
          const m = /^\[:(\^?)([a-z]+):\]$/.exec(name);
          const set = m ? POSIX[m[2] as string] : undefined;
          if (set === undefined) throw new Invalid("invalid character class range", name);
          if (m?.[1]) this.unsupportedBecause("negated POSIX class");
          this.i = k + 2;
          out += set;
          continue;
        }
      }
      if (c === "\\" && (this.peek(1) === "p" || this.peek(1) === "P")) {
        const start = this.i;
        this.i += 2;
        out += this.property(this.chars[start + 1] === "P", true, start);
        continue;
      }
      const perl = c === "\\" ? this.peek(1) : undefined;
      if (perl !== undefined && "dswDSW".includes(perl)) {
        // A class escape is read before ranges: `[\d-z]` is \d, `-` and z.
        this.i += 2;
        const set = PERL[perl.toLowerCase()] as string;
        if (perl !== perl.toLowerCase())
          this.unsupportedBecause("negated Perl class inside a class");
        out += set;
        continue;
      }
      const loStart = this.i;
      const lo = this.classChar(open);
      if (this.peek() === "-" && this.peek(1) !== "]" && this.peek(1) !== undefined) {
        this.i++;
        const hi = this.classChar(open);
        if (hi < lo) throw new Invalid("invalid character class range", this.text(loStart, this.i));
        out += `${literal(lo)}-${literal(hi)}`;
      } else out += literal(lo);
    }
    return out + "]";
  }

  /** Go's parseClassChar: one character of a class, or an escape for one (never a class). */
  private classChar(open: number): number {
    const c = this.chars[this.i++];
    if (c === undefined) throw new Invalid("missing closing ]", this.text(open));
    return c === "\\" ? this.parseEscape(this.i - 1) : (c.codePointAt(0) as number);
  }
}

/** Steps of backtracking allowed for one match (about 0.1 s). */
const BACKTRACKING_BUDGET = 1e8;

const cache = new Map<string, Re2Result>();

/** Reads an RE2 pattern (see the module comment). */
export function translateRe2(pattern: string): Re2Result {
  const hit = cache.get(pattern);
  if (hit) return hit;
  const result = translate(pattern);
  if (cache.size > 256) cache.clear();
  cache.set(pattern, result);
  return result;
}

function translate(pattern: string): Re2Result {
  let body = pattern;
  let flags = "u";
  let dotAll = false;
  let unsupported: string | undefined;
  // Flags set at the very start apply to the whole pattern, as JavaScript's flags do.
  const lead = /^\(\?([imsU]+)\)/.exec(body);
  if (lead) {
    const f = lead[1] as string;
    if (f.includes("U")) unsupported = "ungreedy flag U";
    else if (f.includes("m")) unsupported = "multi-line flag m";
    if (f.includes("i")) flags += "i";
    dotAll = f.includes("s");
    body = body.slice(lead[0].length);
  }
  let t: Translator;
  let source: string;
  try {
    t = new Translator(body, dotAll, pattern);
    source = t.run();
  } catch (e) {
    if (e instanceof Invalid) return { kind: "invalid", reason: e.message };
    throw e;
  }
  unsupported ??= t.unsupported;
  if (unsupported !== undefined) return { kind: "unsupported", reason: unsupported };
  let regex: RegExp;
  try {
    regex = new RegExp(source, flags);
  } catch (e) {
    return { kind: "unsupported", reason: e instanceof Error ? e.message : String(e) };
  }
  return {
    kind: "ok",
    regex,
    repetitions: t.repetitions,
    anchored: source.startsWith("^") && !t.topLevelAlternation,
  };
}

/** `s.matches(pattern)` as cel-go computes it, or throws when this module cannot decide. */
export function re2Matches(s: string, pattern: string): boolean {
  const r = translateRe2(pattern);
  if (r.kind === "ok") {
    // Backtracking costs up to about n^k steps for n characters and k repetitions (one more when
    // every start is tried), where RE2 stays linear: beyond a budget, not evaluated here.
    const k = r.repetitions + (r.anchored ? 0 : 1);
    if (r.repetitions === 0 || (s.length + 1) ** k <= BACKTRACKING_BUDGET) return r.regex.test(s);
    throw Object.assign(
      new Error(
        `a ${s.length}-character subject for a pattern with ${r.repetitions} repetition${r.repetitions === 1 ? "" : "s"} (JavaScript would backtrack where RE2 does not)`,
      ),
      { code: "unsupported_regular_expression" },
    );
  }
  throw Object.assign(new Error(`regular expression ${JSON.stringify(pattern)}: ${r.reason}`), {
    code: r.kind === "invalid" ? "invalid_regular_expression" : "unsupported_regular_expression",
  });
}
