import Link from "next/link";

/** A detail page's object is not in the cluster (any more): say so and lead back to its list. */
export function ObjectGone({ kind, name, list }: { kind: string; name: string; list: string }) {
  return (
    <>
      <h1>{name}</h1>
      <p className="alert" role="alert">
        There is no {kind} named {name} (it may just have been deleted).{" "}
        <Link href={list}>Back to the list</Link>
      </p>
    </>
  );
}
