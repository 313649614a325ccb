{{/* Names and labels */}}
{{- define "baret.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "baret.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* The name of one component (a service or an engine): <fullname>-<component>. */}}
{{- define "baret.componentName" -}}
{{- printf "%s-%s" (include "baret.fullname" .root) .component | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "baret.selectorLabels" -}}
app.kubernetes.io/name: {{ include "baret.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "baret.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .root.Chart.Name .root.Chart.Version | replace "+" "_" }}
{{ include "baret.selectorLabels" . }}
app.kubernetes.io/part-of: baret
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
{{- end -}}

{{/* One service's settings: the shared defaults overridden by services.<name>. */}}
{{- define "baret.serviceValues" -}}
{{- $own := index .root.Values.services .name -}}
{{- toYaml (mergeOverwrite (deepCopy .root.Values.defaults) (deepCopy $own)) -}}
{{- end -}}

{{- define "baret.image" -}}
{{- $image := mergeOverwrite (deepCopy .root.Values.image) (deepCopy (.image | default dict)) -}}
{{- printf "%s:%s" $image.repository (default .root.Chart.AppVersion $image.tag) -}}
{{- end -}}

{{- define "baret.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "baret.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{/* The Secret of the application: the operator's, or the one the chart generates. */}}
{{- define "baret.secretName" -}}
{{- default (include "baret.fullname" .) .Values.secrets.existingSecret -}}
{{- end -}}

{{/* Secure defaults shared by every pod and container (docs/adr/0012). */}}
{{- define "baret.podSecurityContext" -}}
runAsNonRoot: true
runAsUser: {{ .uid }}
runAsGroup: {{ .uid }}
fsGroup: {{ .uid }}
fsGroupChangePolicy: OnRootMismatch
seccompProfile:
  type: RuntimeDefault
{{- end -}}

{{- define "baret.containerSecurityContext" -}}
runAsNonRoot: true
readOnlyRootFilesystem: true
allowPrivilegeEscalation: false
privileged: false
capabilities:
  drop: [ALL]
seccompProfile:
  type: RuntimeDefault
{{- end -}}

{{/* Engines: where each one is, bundled or external. */}}
{{- define "baret.kafkaBrokers" -}}
{{- if .Values.kafka.enabled -}}
{{- printf "%s:9092" (include "baret.componentName" (dict "root" . "component" "kafka")) -}}
{{- else -}}
{{- required "kafka.enabled is false: set externalKafka.brokers" .Values.externalKafka.brokers -}}
{{- end -}}
{{- end -}}

{{- define "baret.s3Endpoint" -}}
{{- if .Values.minio.enabled -}}
{{- printf "http://%s:9000" (include "baret.componentName" (dict "root" . "component" "minio")) -}}
{{- else -}}
{{- required "minio.enabled is false: set externalS3.endpoint" .Values.externalS3.endpoint -}}
{{- end -}}
{{- end -}}

{{/* Checks across values that the schema cannot express. */}}
{{- define "baret.validate" -}}
{{- if and (eq .Values.eventStore.type "kurrentdb") (not .Values.kurrentdb.enabled) (not .Values.externalKurrentdb.url) (not .Values.externalKurrentdb.existingSecret) -}}
{{- fail "eventStore.type is kurrentdb and kurrentdb.enabled is false: set externalKurrentdb.url or externalKurrentdb.existingSecret" -}}
{{- end -}}
{{- if and (eq .Values.eventStore.type "postgres") (not .Values.postgresql.enabled) (not .Values.externalPostgresql.url) (not .Values.externalPostgresql.existingSecret) -}}
{{- fail "eventStore.type is postgres and postgresql.enabled is false: set externalPostgresql.url or externalPostgresql.existingSecret" -}}
{{- end -}}
{{- if and (not .Values.mongodb.enabled) (not .Values.externalMongodb.url) (not .Values.externalMongodb.existingSecret) -}}
{{- fail "mongodb.enabled is false: set externalMongodb.url or externalMongodb.existingSecret" -}}
{{- end -}}
{{- if and (not .Values.minio.enabled) (not .Values.externalS3.existingSecret) -}}
{{- fail "minio.enabled is false: set externalS3.existingSecret (a Secret with the S3 access key and secret key)" -}}
{{- end -}}
{{- if and .Values.kurrentdb.enabled .Values.postgresql.enabled -}}
{{- fail "kurrentdb.enabled and postgresql.enabled are both true: bundle the one event store that eventStore.type names" -}}
{{- end -}}
{{- if and .Values.sso.issuer (or (not .Values.sso.clientId) (not .Values.sso.redirectUrl) (not .Values.sso.clientSecret.existingSecret)) -}}
{{- fail "sso.issuer is set: set sso.clientId, sso.redirectUrl (https://<host>/login/sso) and sso.clientSecret.existingSecret too" -}}
{{- end -}}
{{- if and .Values.ingress.enabled (not .Values.ingress.tls.enabled) -}}
{{- fail "ingress.tls.enabled is false: the gateway is served over TLS only" -}}
{{- end -}}
{{- end -}}

{{/* Where people reach the web app: config.publicUrl, else the Ingress's host, else empty. */}}
{{- define "baret.publicUrl" -}}
{{- $v := .Values -}}
{{- if $v.config.publicUrl -}}
{{- $v.config.publicUrl -}}
{{- else if $v.ingress.enabled -}}
{{- printf "%s://%s" (ternary "https" "http" $v.ingress.tls.enabled) $v.ingress.host -}}
{{- end -}}
{{- end -}}

{{/* The non-secret environment of one service (its ConfigMap). */}}
{{- define "baret.serviceConfig" -}}
{{- $root := .root -}}
{{- $v := $root.Values -}}
{{- $svc := .svc -}}
BARET_MODE: distributed
NODE_ENV: {{ $v.config.nodeEnv | quote }}
PORT: {{ $v.service.port | quote }}
LOG_LEVEL: {{ $v.config.logLevel | quote }}
SHUTDOWN_GRACE_MS: {{ mul $svc.shutdownGraceSeconds 1000 | quote }}
{{- if eq .name "identity" }}
BARET_ADMIN_EMAILS: {{ $v.config.adminEmails | quote }}
{{- end }}
{{- if eq .name "gateway" }}
CORS_ORIGINS: {{ $v.config.corsOrigins | quote }}
{{- /* behind the Ingress controller the client's address is in X-Forwarded-For; without one, nothing may set it */}}
TRUST_PROXY: {{ $v.ingress.enabled | quote }}
{{- end }}
{{- if $v.config.otelExporterOtlpEndpoint }}
OTEL_EXPORTER_OTLP_ENDPOINT: {{ $v.config.otelExporterOtlpEndpoint | quote }}
OTEL_SERVICE_NAME: {{ printf "baret-%s" .name | quote }}
{{- end }}
{{- range $svc.calls }}
{{ upper . }}_URL: {{ printf "http://%s:%v" (include "baret.componentName" (dict "root" $root "component" .)) $v.service.port | quote }}
{{- end }}
{{- if has "kafka" $svc.uses }}
KAFKA_BROKERS: {{ include "baret.kafkaBrokers" $root | quote }}
{{- end }}
{{- if has "eventStore" $svc.uses }}
EVENT_STORE: {{ $v.eventStore.type | quote }}
{{- if eq $v.eventStore.type "kurrentdb" }}
{{- if $v.kurrentdb.enabled }}
EVENTSTORE_URL: {{ printf "kurrentdb://%s:2113?tls=false" (include "baret.componentName" (dict "root" $root "component" "kurrentdb")) | quote }}
{{- else if not $v.externalKurrentdb.existingSecret }}
EVENTSTORE_URL: {{ $v.externalKurrentdb.url | quote }}
{{- end }}
{{- else if and (not $v.postgresql.enabled) (not $v.externalPostgresql.existingSecret) }}
POSTGRES_URL: {{ $v.externalPostgresql.url | quote }}
{{- end }}
{{- end }}
{{- if has "mongodb" $svc.uses }}
MONGODB_DATABASE: {{ ternary $v.mongodb.database $v.externalMongodb.database $v.mongodb.enabled | quote }}
{{- if and (not $v.mongodb.enabled) (not $v.externalMongodb.existingSecret) }}
MONGODB_URL: {{ $v.externalMongodb.url | quote }}
{{- end }}
{{- end }}
{{- if has "s3" $svc.uses }}
S3_ENDPOINT: {{ include "baret.s3Endpoint" $root | quote }}
S3_BUCKET: {{ ternary $v.minio.bucket $v.externalS3.bucket $v.minio.enabled | quote }}
S3_REGION: {{ ternary $v.minio.region $v.externalS3.region $v.minio.enabled | quote }}
{{- end }}
{{- if has "openai" $svc.uses }}
{{- if $v.config.openaiBaseUrl }}
OPENAI_BASE_URL: {{ $v.config.openaiBaseUrl | quote }}
{{- end }}
OPENAI_MODEL: {{ $v.config.openaiModel | quote }}
{{- end }}
{{- if and (has "oidc" $svc.uses) $v.sso.issuer }}
OIDC_ISSUER: {{ $v.sso.issuer | quote }}
OIDC_CLIENT_ID: {{ $v.sso.clientId | quote }}
OIDC_REDIRECT_URL: {{ $v.sso.redirectUrl | quote }}
OIDC_ORG_DOMAINS: {{ $v.sso.orgDomains | quote }}
OIDC_SCOPES: {{ $v.sso.scopes | quote }}
{{- end }}
{{- if has "smtp" $svc.uses }}
SMTP_FROM: {{ $v.config.smtpFrom | quote }}
BARET_TEAM_EMAIL: {{ $v.config.teamEmail | quote }}
{{- end }}
{{- if has "webhooks" $svc.uses }}
{{- with (include "baret.publicUrl" $root) }}
PUBLIC_URL: {{ . | quote }}
{{- end }}
NOTIFY_ALLOW_PRIVATE_HOSTS: {{ $v.notifications.allowPrivateHosts | quote }}
NOTIFY_WEBHOOK_RETRY_BASE_MS: {{ $v.notifications.webhookRetryBaseMs | int64 | quote }}
{{- end }}
{{- if $svc.scratch.enabled }}
BARET_SCRATCH_DIR: /scratch
{{- end }}
{{- range $k, $val := $svc.env }}
{{ $k }}: {{ $val | quote }}
{{- end }}
{{- end -}}

{{/* One environment variable read from a Secret. */}}
{{- define "baret.secretEnv" -}}
- name: {{ .name }}
  valueFrom:
    secretKeyRef:
      name: {{ .secret }}
      key: {{ .key }}
{{- end -}}

{{/* The secret environment of one service: only what it uses. */}}
{{- define "baret.serviceSecretEnv" -}}
{{- $root := .root -}}
{{- $v := $root.Values -}}
{{- $svc := .svc -}}
{{- $app := include "baret.secretName" $root -}}
{{- $keys := $v.secrets.keys -}}
{{ include "baret.secretEnv" (dict "name" "SERVICE_SECRET" "secret" $app "key" $keys.serviceSecret) }}
{{- if $svc.jwtSecret }}
{{ include "baret.secretEnv" (dict "name" "JWT_SECRET" "secret" $app "key" $keys.jwtSecret) }}
{{- end }}
{{- if has "eventStore" $svc.uses }}
{{- if eq $v.eventStore.type "kurrentdb" }}
{{- if and (not $v.kurrentdb.enabled) $v.externalKurrentdb.existingSecret }}
{{ include "baret.secretEnv" (dict "name" "EVENTSTORE_URL" "secret" $v.externalKurrentdb.existingSecret "key" $v.externalKurrentdb.urlKey) }}
{{- end }}
{{- else if $v.postgresql.enabled }}
{{ include "baret.secretEnv" (dict "name" "POSTGRES_URL" "secret" $app "key" $keys.postgresUrl) }}
{{- else if $v.externalPostgresql.existingSecret }}
{{ include "baret.secretEnv" (dict "name" "POSTGRES_URL" "secret" $v.externalPostgresql.existingSecret "key" $v.externalPostgresql.urlKey) }}
{{- end }}
{{- end }}
{{- if has "mongodb" $svc.uses }}
{{- if $v.mongodb.enabled }}
{{ include "baret.secretEnv" (dict "name" "MONGODB_URL" "secret" $app "key" $keys.mongodbUrl) }}
{{- else if $v.externalMongodb.existingSecret }}
{{ include "baret.secretEnv" (dict "name" "MONGODB_URL" "secret" $v.externalMongodb.existingSecret "key" $v.externalMongodb.urlKey) }}
{{- end }}
{{- end }}
{{- if has "s3" $svc.uses }}
{{- if $v.minio.enabled }}
{{ include "baret.secretEnv" (dict "name" "S3_ACCESS_KEY" "secret" $app "key" $keys.s3AccessKey) }}
{{ include "baret.secretEnv" (dict "name" "S3_SECRET_KEY" "secret" $app "key" $keys.s3SecretKey) }}
{{- else }}
{{ include "baret.secretEnv" (dict "name" "S3_ACCESS_KEY" "secret" $v.externalS3.existingSecret "key" $v.externalS3.accessKeyKey) }}
{{ include "baret.secretEnv" (dict "name" "S3_SECRET_KEY" "secret" $v.externalS3.existingSecret "key" $v.externalS3.secretKeyKey) }}
{{- end }}
{{- end }}
{{- if and (has "openai" $svc.uses) $v.secrets.openaiApiKey.existingSecret }}
{{ include "baret.secretEnv" (dict "name" "OPENAI_API_KEY" "secret" $v.secrets.openaiApiKey.existingSecret "key" $v.secrets.openaiApiKey.key) }}
{{- end }}
{{- if and (has "oidc" $svc.uses) $v.sso.issuer }}
{{ include "baret.secretEnv" (dict "name" "OIDC_CLIENT_SECRET" "secret" $v.sso.clientSecret.existingSecret "key" $v.sso.clientSecret.key) }}
{{- end }}
{{- if and (has "smtp" $svc.uses) $v.secrets.smtpUrl.existingSecret }}
{{ include "baret.secretEnv" (dict "name" "SMTP_URL" "secret" $v.secrets.smtpUrl.existingSecret "key" $v.secrets.smtpUrl.key) }}
{{- end }}
{{- if and (has "webhooks" $svc.uses) $v.secrets.vapid.existingSecret }}
{{ include "baret.secretEnv" (dict "name" "VAPID_PUBLIC_KEY" "secret" $v.secrets.vapid.existingSecret "key" $v.secrets.vapid.publicKey) }}
{{ include "baret.secretEnv" (dict "name" "VAPID_PRIVATE_KEY" "secret" $v.secrets.vapid.existingSecret "key" $v.secrets.vapid.privateKey) }}
{{- end }}
{{- end -}}

{{/* The engines a service reaches, as [name port] pairs of the bundled ones or external ports. */}}
{{- define "baret.engineTargets" -}}
{{- $v := .root.Values -}}
{{- $out := list -}}
{{- range .svc.uses -}}
{{- if eq . "kafka" -}}
{{- $out = append $out (dict "bundled" $v.kafka.enabled "component" "kafka" "ports" (ternary (list 9092) $v.externalKafka.ports $v.kafka.enabled)) -}}
{{- else if eq . "mongodb" -}}
{{- $out = append $out (dict "bundled" $v.mongodb.enabled "component" "mongodb" "ports" (ternary (list 27017) $v.externalMongodb.ports $v.mongodb.enabled)) -}}
{{- else if eq . "s3" -}}
{{- $out = append $out (dict "bundled" $v.minio.enabled "component" "minio" "ports" (ternary (list 9000) $v.externalS3.ports $v.minio.enabled)) -}}
{{- else if and (eq . "eventStore") (eq $v.eventStore.type "kurrentdb") -}}
{{- $out = append $out (dict "bundled" $v.kurrentdb.enabled "component" "kurrentdb" "ports" (ternary (list 2113) $v.externalKurrentdb.ports $v.kurrentdb.enabled)) -}}
{{- else if eq . "eventStore" -}}
{{- $out = append $out (dict "bundled" $v.postgresql.enabled "component" "postgresql" "ports" (ternary (list 5432) $v.externalPostgresql.ports $v.postgresql.enabled)) -}}
{{- else if eq . "openai" -}}
{{- $out = append $out (dict "bundled" false "component" "openai" "ports" (list 443 80)) -}}
{{- else if eq . "smtp" -}}
{{- $out = append $out (dict "bundled" false "component" "smtp" "ports" (list 25 465 587)) -}}
{{- else if and (eq . "oidc") $v.sso.issuer -}}
{{- $out = append $out (dict "bundled" false "component" "oidc" "ports" $v.sso.ports) -}}
{{- end -}}
{{- end -}}
{{- toYaml (dict "targets" $out) -}}
{{- end -}}
