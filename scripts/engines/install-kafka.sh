#!/usr/bin/env bash
# Apache Kafka brokers (3.9 and 4.x) from Maven Central for the Kafka message bus tests: the broker's
# jars with a logging binding, run in KRaft mode by the tests (services/platform/src/testing/engines/kafka.ts).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
command -v java >/dev/null && command -v mvn >/dev/null || { echo "kafka: Java 17 and Maven are needed (apt-get install openjdk-17-jre-headless maven)"; exit 1; }
for VERSION in 3.9.1 4.1.1; do
  dest="$BARET_ENGINES_DIR/kafka-$VERSION"
  if [ -d "$dest/libs" ]; then echo "kafka: $dest (present)"; continue; fi
  tmp="$(mktemp -d "$BARET_ENGINES_DIR/.kafka-XXXXXX")"
  echo "kafka: fetching $VERSION"
  mvn -q -B -f "$here/kafka/pom.xml" -Dkafka.version="$VERSION" dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$tmp/libs"
  rm -rf "$dest" && mv "$tmp" "$dest"
  echo "kafka: $dest"
done
