import Link from "next/link";

export const metadata = { title: "Not found · Portcullis" };

/** Any address the dashboard has no page for, including one naming a kind of object it does not show. */
export default function NotFound() {
  return (
    <div className="stack">
      <div className="page-head">
        <h1>Not found</h1>
      </div>
      <p>
        Nothing is at this address: no page has this path, or it names a kind of object the
        dashboard does not show.
      </p>
      <p className="links">
        <Link href="/">Overview</Link>
        <Link href="/webhooks">Webhooks</Link>
        <Link href="/policies">Policies</Link>
        <Link href="/webhooks/order">Call order</Link>
        <Link href="/decisions">Decisions</Link>
      </p>
    </div>
  );
}
