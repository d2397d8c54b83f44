/**
 * A field path printed the way apimachinery's field.Path.String() prints it:
 * `webhooks[0].rules[1].resources[2]`, map keys as `[key]`.
 */
export class FieldPath {
  private constructor(
    private readonly parent: FieldPath | undefined,
    private readonly name: string,
    private readonly index: string,
  ) {}

  /** A root path such as `metadata` or `spec`. */
  static root(name: string): FieldPath {
    return new FieldPath(undefined, name, "");
  }

  /** A child field (`a.b`); several names make a chain. */
  child(...names: string[]): FieldPath {
    return names.reduce<FieldPath>((p, n) => new FieldPath(p, n, ""), this);
  }

  /** A list index (`a[3]`). */
  at(i: number): FieldPath {
    return new FieldPath(this, "", String(i));
  }

  /** A map key (`a[key]`). */
  key(k: string): FieldPath {
    return new FieldPath(this, "", k);
  }

  /** The structural segments, for finding the source node: names and indexes. */
  segments(): (string | number)[] {
    const out: (string | number)[] = [];
    for (let p: FieldPath | undefined = this.self(); p; p = p.parent) {
      if (p.name) out.push(p.name);
      else out.push(/^\d+$/.test(p.index) ? Number(p.index) : p.index);
    }
    return out.reverse();
  }

  private self(): FieldPath {
    return this;
  }

  toString(): string {
    const elems: FieldPath[] = [];
    for (let p: FieldPath | undefined = this.self(); p; p = p.parent) elems.push(p);
    let s = "";
    for (let i = elems.length - 1; i >= 0; i--) {
      const p = elems[i]!;
      if (p.parent && p.name) s += ".";
      s += p.name ? p.name : `[${p.index}]`;
    }
    return s;
  }
}
