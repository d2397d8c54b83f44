/**
 * CEL's `matches` uses Go's regexp (RE2 syntax, matching on Unicode code points); JavaScript's
 * RegExp differs in syntax and in what `.`, `\s` and `\pL` mean. This module reads an RE2 pattern
 * and either translates it to an equivalent JavaScript RegExp (flag `u`, so it matches code
 * points as Go does), or says the pattern is invalid in RE2 (what `regexp.Compile` refuses, so the
 * apiserver refuses it too), or says it cannot translate it faithfully — then the caller must not
 * guess. Only constructs whose RE2 meaning is certain are translated.
 */

export type Re2Result =
  /**
   * `repetitions`: how many repetition operators the pattern has; `anchored`: whether every match
   * must start at the subject's start (JavaScript then tries no other start).
   */
  | { kind: "ok"; regex: RegExp; repetitions: number; anchored: boolean }
  | { kind: "invalid"; reason: string }
  | { kind: "unsupported"; reason: string };

/** Unicode general categories RE2 knows by name (`\pL`, `\p{Lu}`); other names are scripts. */
const CATEGORIES = new Set(
  (
    "C Cc Cf Co Cs L Ll Lm Lo Lt Lu M Mc Me Mn N Nd Nl No P Pc Pd Pe Pf Pi Po Ps " +
    "S Sc Sk Sm So Z Zl Zp Zs"
  ).split(" "),
);

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

class Unsupported extends Error {}
/** What regexp.Compile refuses: Go's error code and the part of the pattern it quotes. */
class Invalid extends Error {
  constructor(code: string, expr: string) {
    super(`${code}: \`${expr}\``);
  }
}

const isDigit = (c: string) => c >= "0" && c <= "9";
const isAsciiPunct = (c: string) => /^[!-/:-@[-`{-~]$/.test(c);

/** A literal code point written so it means itself inside or outside a class (flag u). */
function literal(cp: number): string {
  return cp < 0x80 && !/[0-9A-Za-z_ ]/.test(String.fromCodePoint(cp))
    ? `\\x${cp.toString(16).padStart(2, "0")}`
    : cp > 0xffff || cp < 0x20
      ? `\\u{${cp.toString(16)}}`
      : String.fromCodePoint(cp);
}

class Translator {
  private i = 0;
  private out = "";
  private depth = 0;
  /** Whether the last thing written can take a repetition operator. */
  private repeatable = false;
  /** Per open group: whether it repeats or alternates inside. */
  private readonly groups: boolean[] = [];
  /** Whether the last thing written is a group that repeats or alternates inside. */
  private riskyGroup = false;
  repetitions = 0;
  /** Whether an alternation `|` stands outside every group. */
  topLevelAlternation = false;
  private readonly chars: string[];
  /** Where the repetition operator just read starts, when the last token was one. */
  private lastRepeat: number | undefined;

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
        this.out += this.escape(false);
        this.repeatable = true;
        return;
      case "[":
        this.out += this.charClass();
        this.repeatable = true;
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
        this.repeatable = true;
        return;
      case "|":
        if (this.groups.length > 0) this.groups[this.groups.length - 1] = true;
        else this.topLevelAlternation = true;
        this.out += "|";
        this.repeatable = false;
        return;
      case "*":
      case "+":
      case "?":
        this.repeat(c, this.i - 1);
        return;
      case "{": {
        const m = /^\{(\d+)(,(\d*))?\}/.exec(this.chars.slice(this.i - 1, this.i + 24).join(""));
        if (!m) {
          // Not a repetition: RE2 reads `{` as a literal.
          this.out += "\\{";
          this.repeatable = true;
          this.riskyGroup = false;
          this.lastRepeat = undefined;
          return;
        }
        const min = Number(m[1]);
        const max = m[3] === undefined || m[3] === "" ? min : Number(m[3]);
        if (min > 1000 || max > 1000 || (m[3] !== "" && m[3] !== undefined && max < min))
          throw new Invalid("invalid repeat count", m[0]);
        this.i += m[0].length - 1;
        this.repeat(m[0], this.i - m[0].length);
        return;
      }
      case ".":
        this.out += this.dotAll ? "[\\s\\S]" : "[^\\n]";
        this.repeatable = true;
        return;
      case "^":
      case "$":
        this.out += c;
        this.repeatable = false;
        return;
      default:
        this.out += literal(c.codePointAt(0) as number);
        this.repeatable = true;
    }
  }

  /** A repetition operator `op` read from `start`; a `?` after it (non-greedy) is part of it. */
  private repeat(op: string, start: number): void {
    const end = this.peek() === "?" ? this.i + 1 : this.i;
    // Go quotes from the previous operator (`a**`: "**"), or the operator with its `?`.
    if (this.lastRepeat !== undefined)
      throw new Invalid("invalid nested repetition operator", this.text(this.lastRepeat, end));
    if (!this.repeatable) {
      // Go repeats an anchor (`^*` compiles); JavaScript refuses it: not translated.
      const prev = this.out.at(-1);
      if (start > 0 && (prev === "^" || prev === "$")) throw new Unsupported("a repeated anchor");
      throw new Invalid("missing argument to repetition operator", this.text(start, end));
    }
    // RE2 runs in linear time; JavaScript backtracks, exponentially for a repeated group that
    // itself repeats or alternates (`(a+)+`, `(a|aa)*`) on a long enough subject: not translated.
    // (`?`, `{0,1}` and `{1}` repeat nothing: `(-[a-z]+)?` is safe.)
    const once = op === "?" || /^\{[01](,1)?\}$/.test(op);
    if (this.riskyGroup && !once)
      throw new Unsupported("a repeated group that repeats or alternates inside (backtracking)");
    if (this.groups.length > 0) this.groups[this.groups.length - 1] = true;
    this.repetitions++;
    this.out += op;
    if (this.peek() === "?") {
      this.out += "?";
      this.i++;
    }
    this.repeatable = false;
    this.lastRepeat = start;
  }

  private group(): void {
    this.groups.push(false);
    if (this.peek() !== "?") {
      this.out += "(";
      this.depth++;
      this.repeatable = false;
      return;
    }
    const rest = this.chars.slice(this.i, this.i + 4).join("");
    if (rest.startsWith("?:")) {
      this.i += 2;
      this.out += "(?:";
      this.depth++;
      this.repeatable = false;
      return;
    }
    const named = /^\?P?<([A-Za-z0-9_]+)>/.exec(this.chars.slice(this.i, this.i + 64).join(""));
    if (named) {
      this.i += named[0].length;
      this.out += `(?<${named[1]}>`;
      this.depth++;
      this.repeatable = false;
      return;
    }
    // `(?<` starts a named capture in Go, so `(?<=…` is a name Go refuses, quoted to its `>`.
    if (/^\?<[=!]/.test(rest)) {
      const close = this.chars.indexOf(">", this.i);
      throw new Invalid(
        "invalid named capture",
        close < 0 ? this.text(this.i - 1) : this.text(this.i - 1, close + 1),
      );
    }
    if (/^\?[=!]/.test(rest))
      throw new Invalid("invalid or unsupported Perl syntax", this.text(this.i - 1, this.i + 2));
    // Inline flags inside the pattern: JavaScript has no equivalent here.
    throw new Unsupported("inline flags inside the pattern");
  }

  /** After a backslash. In a class, returns class contents. */
  private escape(inClass: boolean): string {
    const start = this.i - 1;
    const c = this.chars[this.i++];
    if (c === undefined) throw new Invalid("trailing backslash at end of expression", "");
    // Octal escapes, or a back-reference (which RE2 refuses): not translated.
    if (isDigit(c)) throw new Unsupported("octal or back-reference escape");
    if (isAsciiPunct(c)) return literal(c.codePointAt(0) as number);
    switch (c) {
      case "a":
        return "\\x07";
      case "f":
        return "\\f";
      case "t":
        return "\\t";
      case "n":
        return "\\n";
      case "r":
        return "\\r";
      case "v":
        return "\\v";
      case "x":
        return literal(this.hexEscape(start));
      case "d":
      case "s":
      case "w": {
        const set = PERL[c] as string;
        return inClass ? set : `[${set}]`;
      }
      case "D":
      case "S":
      case "W": {
        const set = PERL[c.toLowerCase()] as string;
        if (inClass) throw new Unsupported("negated Perl class inside a class");
        return `[^${set}]`;
      }
      case "p":
      case "P":
        return this.property(c === "P", inClass);
      case "b":
      case "B":
        if (inClass) throw new Unsupported(`\\${c} inside a class`);
        return `\\${c}`;
      case "A":
        if (inClass) throw new Unsupported("\\A inside a class");
        return "^";
      case "z":
        if (inClass) throw new Unsupported("\\z inside a class");
        return "$";
      case "Q": {
        let lit = "";
        while (this.i < this.chars.length) {
          if (this.chars[this.i] === "\\" && this.chars[this.i + 1] === "E") {
            this.i += 2;
            break;
          }
          lit += literal((this.chars[this.i++] as string).codePointAt(0) as number);
        }
        if (inClass) throw new Unsupported("\\Q inside a class");
        return lit.length > 0 ? `(?:${lit})` : "(?:)";
      }
      default:
        // Other letters (RE2 refuses most, `\q`, and knows a few, `\C`) and escaped non-ASCII
        // characters (which it refuses): not decided here.
        throw new Unsupported(`escape \\${c}`);
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

  private property(negated: boolean, inClass: boolean): string {
    // From the backslash: Go quotes `\p{Name}`, or all that follows when the brace never closes.
    const start = this.i - 2;
    let name: string;
    if (this.peek() === "{") {
      const end = this.chars.indexOf("}", this.i);
      if (end < 0) throw new Invalid("invalid character class range", this.text(start));
      name = this.chars.slice(this.i + 1, end).join("");
      this.i = end + 1;
    } else {
      name = this.chars[this.i++] ?? "";
    }
    if (name.startsWith("^")) {
      negated = !negated;
      name = name.slice(1);
    }
    if (name === "Any") {
      if (negated) throw new Unsupported("\\P{Any}");
      return inClass ? "\\u{0}-\\u{10ffff}" : "[\\u{0}-\\u{10ffff}]";
    }
    if (!/^[A-Za-z_]+$/.test(name))
      throw new Invalid("invalid character class range", this.text(start, this.i));
    const inner = CATEGORIES.has(name) ? name : `Script=${name}`;
    try {
      new RegExp(`\\p{${inner}}`, "u");
    } catch {
      // A name JavaScript does not know; RE2 may know it (or refuse it): do not guess.
      throw new Unsupported(`Unicode class ${name}`);
    }
    return `\\${negated ? "P" : "p"}{${inner}}`;
  }

  /** After `[`: the whole class. */
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
    let items = 0;
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
          if (m?.[1]) throw new Unsupported("negated POSIX class");
          this.i = k + 2;
          out += set;
          items++;
          continue;
        }
      }
      const loStart = this.i;
      const lo = this.classAtom();
      // A class escape (`\d`, `\pL`) is read before ranges: `[\d-z]` is \d, `-` and z.
      if (
        lo.cp !== undefined &&
        this.peek() === "-" &&
        this.peek(1) !== "]" &&
        this.peek(1) !== undefined
      ) {
        this.i++;
        const hiStart = this.i;
        const hi = this.classAtom();
        // Go reads a range's end as one character: a class escape there is an invalid escape.
        if (hi.cp === undefined)
          throw new Invalid("invalid escape sequence", this.text(hiStart, hiStart + 2));
        if (hi.cp < lo.cp)
          throw new Invalid("invalid character class range", this.text(loStart, this.i));
        out += `${lo.text}-${hi.text}`;
      } else out += lo.text;
      items++;
    }
    if (items === 0) throw new Invalid("missing closing ]", this.text(open));
    return out + "]";
  }

  /** One class member: its text for JavaScript and, when it is one code point, that code point. */
  private classAtom(): { text: string; cp: number | undefined } {
    const c = this.chars[this.i++] as string;
    if (c !== "\\") return { text: literal(c.codePointAt(0) as number), cp: c.codePointAt(0) };
    const next = this.chars[this.i];
    const before = this.i;
    const text = this.escape(true);
    const single = next !== undefined && (isAsciiPunct(next) || "aftnrvx".includes(next));
    if (!single) return { text, cp: undefined };
    const raw = this.chars.slice(before, this.i).join("");
    const cp = decodeEscape(raw);
    return { text, cp };
  }
}

function decodeEscape(raw: string): number | undefined {
  const simple: Record<string, number> = { a: 7, f: 12, t: 9, n: 10, r: 13, v: 11 };
  if (raw.length === 1) return simple[raw] ?? raw.codePointAt(0);
  const m = /^x\{?([0-9A-Fa-f]+)\}?$/.exec(raw);
  return m ? parseInt(m[1] as string, 16) : undefined;
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
  // Flags set at the very start apply to the whole pattern, as JavaScript's flags do.
  const lead = /^\(\?([imsU]+)\)/.exec(body);
  if (lead) {
    const f = lead[1] as string;
    if (f.includes("U")) return { kind: "unsupported", reason: "ungreedy flag U" };
    if (f.includes("m")) return { kind: "unsupported", reason: "multi-line flag m" };
    if (f.includes("i")) flags += "i";
    dotAll = f.includes("s");
    body = body.slice(lead[0].length);
  }
  try {
    const t = new Translator(body, dotAll, pattern);
    const source = t.run();
    return {
      kind: "ok",
      regex: new RegExp(source, flags),
      repetitions: t.repetitions,
      anchored: source.startsWith("^") && !t.topLevelAlternation,
    };
  } catch (e) {
    if (e instanceof Invalid) return { kind: "invalid", reason: e.message };
    if (e instanceof Unsupported) return { kind: "unsupported", reason: e.message };
    return { kind: "unsupported", reason: e instanceof Error ? e.message : String(e) };
  }
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
