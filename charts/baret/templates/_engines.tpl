{{/*
The bundled engines: one single-node StatefulSet each, from its official image, on a PVC. Each
entry says what differs between them; templates/engines.yaml renders them all the same way.
  uid       the image's own non-root user
  writable  folders the process writes outside its volume (emptyDirs, the root stays read-only);
            `seed` copies the image's files into the emptyDir first (an init container)
  clients   the services allowed to connect (NetworkPolicy), from their `uses`
*/}}
{{- define "baret.engines" -}}
{{- $root := . -}}
{{- $v := .Values -}}
{{- $app := include "baret.secretName" . -}}
{{- $keys := $v.secrets.keys -}}
engines:
{{- if $v.kafka.enabled }}
  - component: kafka
    uses: kafka
    values: {{ toJson $v.kafka }}
    uid: 1000
    ports: [{ name: kafka, port: 9092 }]
    dataPath: /var/lib/kafka/data
    writable:
      - { path: /opt/kafka/config, seed: true }
      - { path: /opt/kafka/logs }
      - { path: /mnt/shared/config }
      - { path: /tmp }
    env:
      - { name: KAFKA_NODE_ID, value: "1" }
      - { name: KAFKA_PROCESS_ROLES, value: "broker,controller" }
      - { name: KAFKA_LISTENERS, value: "PLAINTEXT://:9092,CONTROLLER://:9093" }
      - { name: KAFKA_ADVERTISED_LISTENERS, value: {{ printf "PLAINTEXT://%s:9092" (include "baret.componentName" (dict "root" $root "component" "kafka")) | quote }} }
      - { name: KAFKA_CONTROLLER_LISTENER_NAMES, value: CONTROLLER }
      - { name: KAFKA_LISTENER_SECURITY_PROTOCOL_MAP, value: "CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT" }
      - { name: KAFKA_CONTROLLER_QUORUM_VOTERS, value: "1@localhost:9093" }
      - { name: KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR, value: "1" }
      - { name: KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR, value: "1" }
      - { name: KAFKA_TRANSACTION_STATE_LOG_MIN_ISR, value: "1" }
      - { name: KAFKA_NUM_PARTITIONS, value: "3" }
      - { name: KAFKA_LOG_DIRS, value: /var/lib/kafka/data }
    probe: { tcpSocket: { port: 9092 } }
{{- end }}
{{- if and $v.kurrentdb.enabled (eq $v.eventStore.type "kurrentdb") }}
  - component: kurrentdb
    uses: eventStore
    values: {{ toJson $v.kurrentdb }}
    uid: 1000
    ports: [{ name: http, port: 2113 }]
    dataPath: /var/lib/kurrentdb
    writable:
      - { path: /var/log/kurrentdb }
      - { path: /tmp }
    env:
      - { name: KURRENTDB_CLUSTER_SIZE, value: "1" }
      - { name: KURRENTDB_INSECURE, value: "true" }
      - { name: KURRENTDB_RUN_PROJECTIONS, value: None }
      - { name: KURRENTDB_NODE_PORT, value: "2113" }
    probe: { httpGet: { path: /health/live, port: 2113 } }
{{- end }}
{{- if and $v.postgresql.enabled (eq $v.eventStore.type "postgres") }}
  - component: postgresql
    uses: eventStore
    values: {{ toJson $v.postgresql }}
    uid: 999
    ports: [{ name: postgresql, port: 5432 }]
    dataPath: /var/lib/postgresql/data
    writable:
      - { path: /var/run/postgresql }
      - { path: /tmp }
    env:
      - { name: POSTGRES_USER, value: {{ $v.postgresql.username | quote }} }
      - { name: POSTGRES_DB, value: {{ $v.postgresql.database | quote }} }
      - { name: PGDATA, value: /var/lib/postgresql/data/pgdata }
      - { name: POSTGRES_PASSWORD, valueFrom: { secretKeyRef: { name: {{ $app }}, key: {{ $keys.postgresPassword }} } } }
    probe: { exec: { command: [pg_isready, -U, {{ $v.postgresql.username | quote }}, -d, {{ $v.postgresql.database | quote }}] } }
{{- end }}
{{- if $v.mongodb.enabled }}
  - component: mongodb
    uses: mongodb
    values: {{ toJson $v.mongodb }}
    uid: 999
    ports: [{ name: mongodb, port: 27017 }]
    dataPath: /data/db
    writable:
      - { path: /data/configdb }
      - { path: /tmp }
    env:
      - { name: HOME, value: /tmp }
      - { name: MONGO_INITDB_ROOT_USERNAME, value: {{ $v.mongodb.username | quote }} }
      - { name: MONGO_INITDB_ROOT_PASSWORD, valueFrom: { secretKeyRef: { name: {{ $app }}, key: {{ $keys.mongodbPassword }} } } }
    probe: { tcpSocket: { port: 27017 } }
{{- end }}
{{- if $v.minio.enabled }}
  - component: minio
    uses: s3
    values: {{ toJson $v.minio }}
    uid: 1000
    ports: [{ name: s3, port: 9000 }]
    dataPath: /data
    args: [server, /data, --address, ":9000", --certs-dir, /tmp/certs]
    writable:
      - { path: /tmp }
    env:
      - { name: HOME, value: /tmp }
      - { name: MINIO_BROWSER, value: "off" }
      - { name: MINIO_UPDATE, value: "off" }
      - { name: MINIO_ROOT_USER, valueFrom: { secretKeyRef: { name: {{ $app }}, key: {{ $keys.s3AccessKey }} } } }
      - { name: MINIO_ROOT_PASSWORD, valueFrom: { secretKeyRef: { name: {{ $app }}, key: {{ $keys.s3SecretKey }} } } }
    probe: { httpGet: { path: /minio/health/live, port: 9000 } }
    readinessProbe: { httpGet: { path: /minio/health/ready, port: 9000 } }
{{- end }}
{{- end -}}
