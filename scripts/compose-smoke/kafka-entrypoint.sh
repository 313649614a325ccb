#!/usr/bin/env bash
# A single-node Kafka (KRaft) from the broker's jars, configured like the apache/kafka image: every
# KAFKA_FOO_BAR variable becomes the broker property foo.bar. The log folder is formatted on first start.
set -euo pipefail
props=/opt/kafka/config/server.properties
: > "$props"
while IFS='=' read -r name value; do
  case "$name" in
    KAFKA_HEAP_OPTS|KAFKA_CLUSTER_ID) ;;
    KAFKA_*) key="${name#KAFKA_}"; key="${key,,}"; printf '%s=%s\n' "${key//_/.}" "$value" >> "$props" ;;
  esac
done < <(env)
logs="$(sed -n 's/^log\.dirs=//p' "$props")"
: "${logs:=/var/lib/kafka/data}"
java=(java ${KAFKA_HEAP_OPTS:--Xms128m -Xmx512m} -XX:+UseSerialGC -cp '/opt/kafka/libs/*')
if [ ! -f "$logs/meta.properties" ]; then
  id="${KAFKA_CLUSTER_ID:-$("${java[@]}" kafka.tools.StorageTool random-uuid | tail -n 1)}"
  "${java[@]}" kafka.tools.StorageTool format -t "$id" -c "$props" --ignore-formatted
fi
exec "${java[@]}" kafka.Kafka "$props"
