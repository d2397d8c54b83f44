{{/* The name every object of a release shares. */}}
{{- define "portcullis.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "portcullis.selectorLabels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "portcullis.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{ include "portcullis.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{- define "portcullis.sessionSecret" -}}
{{- .Values.session.existingSecret | default (printf "%s-session" (include "portcullis.fullname" .)) -}}
{{- end -}}

{{- define "portcullis.auditSecret" -}}
{{- .Values.audit.existingSecret | default (printf "%s-audit-token" (include "portcullis.fullname" .)) -}}
{{- end -}}

{{/* SQLite allows one writer process: several replicas need PostgreSQL. */}}
{{- define "portcullis.replicas" -}}
{{- if .Values.decisions.postgresql.enabled -}}
{{- .Values.replicaCount -}}
{{- else -}}
1
{{- end -}}
{{- end -}}

{{- define "portcullis.sinkUrl" -}}
{{- if .Values.audit.sinkUrl -}}
{{- .Values.audit.sinkUrl -}}
{{- else if .Values.audit.clientCertificate.enabled -}}
{{- fail "audit.sinkUrl must name where kube-apiserver reaches the audit-tls port (https://<host>:<port>/api/audit) when audit.clientCertificate is enabled" -}}
{{- else if .Values.ingress.host -}}
{{- printf "https://%s/api/audit" .Values.ingress.host -}}
{{- else -}}
https://portcullis.example/api/audit
{{- end -}}
{{- end -}}

{{/*
A random value kept across upgrades: the one already in the Secret when there is one (lookup
sees nothing under `helm template`, which renders a fresh value).
*/}}
{{- define "portcullis.keptRandom" -}}
{{- $existing := lookup "v1" "Secret" .namespace .name -}}
{{- if and $existing $existing.data (hasKey $existing.data .key) -}}
{{- index $existing.data .key -}}
{{- else -}}
{{- randAlphaNum 48 | b64enc -}}
{{- end -}}
{{- end -}}

{{- define "portcullis.oidcRedirectUrl" -}}
{{- if .Values.oidc.redirectUrl -}}
{{- .Values.oidc.redirectUrl -}}
{{- else -}}
{{- printf "https://%s/sign-in/oidc" (required "oidc.redirectUrl (or ingress.host) names the dashboard's /sign-in/oidc page for the issuer" .Values.ingress.host) -}}
{{- end -}}
{{- end -}}
