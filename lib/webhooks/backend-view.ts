/** What the detail page shows about a webhook's backend (read on the server). */
export interface ServiceBackendView {
  type: "service";
  namespace: string;
  name: string;
  port: number;
  path?: string;
  /** undefined when the service could not be read (see error). */
  exists?: boolean;
  servicePorts: Array<{ name?: string; port: number; targetPort?: string; protocol?: string }>;
  /** True when the service exposes the port the hook calls. */
  portServed?: boolean;
  /** The name of that Service port ("" when unnamed): endpoints are picked by it. */
  portName?: string;
  clusterIP?: string;
  /** spec.type (undefined: ClusterIP) and, for ExternalName, spec.externalName. */
  serviceType?: string;
  externalName?: string;
  endpoints: {
    ready: number;
    notReady: number;
    addresses: string[];
    /** Ready endpoints on EndpointSlice ports named like the Service port: what gets called. */
    readyForPort?: number;
  };
  error?: { status: number; reason: string; message: string };
}

interface UrlBackendView {
  type: "url";
  url: string;
  host: string;
  port: number;
  path: string;
}

export type BackendView = ServiceBackendView | UrlBackendView | { type: "none" };
