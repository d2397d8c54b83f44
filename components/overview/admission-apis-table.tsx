import type { ServedVersion } from "@/lib/api/overview";
import { ADMISSION_GROUP } from "@/lib/k8s/admission-apis";

/** Every served version of admissionregistration.k8s.io with its resources. */
export function AdmissionApisTable({ apis }: { apis: ServedVersion[] }) {
  return (
    <section className="panel" aria-labelledby="apis-h">
      <h2 id="apis-h">Admission APIs served</h2>
      {apis.length === 0 ? (
        <p className="muted">This cluster does not serve {ADMISSION_GROUP}.</p>
      ) : (
        <table className="data">
          <thead>
            <tr>
              <th scope="col">API version</th>
              <th scope="col">Resources</th>
            </tr>
          </thead>
          <tbody>
            {apis.map((v) => (
              <tr key={`${v.group}/${v.version}`}>
                <td className="mono">
                  {v.group}/{v.version}{" "}
                  {v.preferred ? <span className="badge pref">preferred</span> : null}
                </td>
                <td className="mono">{v.resources.map((r) => r.name).join(", ")}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
