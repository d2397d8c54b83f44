import Link from "next/link";

/** Any address the dashboard has no page for, and any object a page was asked for that is not there. */
export default function NotFound() {
  return (
    <div className="stack">
      <div className="page-head">
        <h1>Not found</h1>
      </div>
      <p>
        Nothing is at this address: the page does not exist, or the object it names is not in the
        cluster (it may have been deleted or renamed).
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
