#!/usr/bin/env bash
# Creates the Secret baret-dev that k8s/dev/baret.yaml reads, with random values, once (an existing
# one is left alone so that tokens and the engines' passwords survive a redeploy).
set -euo pipefail
ns=baret
kubectl get namespace "$ns" >/dev/null 2>&1 || kubectl create namespace "$ns"
if kubectl -n "$ns" get secret baret-dev >/dev/null 2>&1; then echo "secret $ns/baret-dev exists"; exit 0; fi
rand() { openssl rand -hex "$1"; }
mongo_password="$(rand 16)"
postgres_password="$(rand 16)"
kubectl -n "$ns" create secret generic baret-dev \
  --from-literal=JWT_SECRET="$(rand 32)" \
  --from-literal=SERVICE_SECRET="$(rand 32)" \
  --from-literal=S3_ACCESS_KEY="baret-dev" \
  --from-literal=S3_SECRET_KEY="$(rand 20)" \
  --from-literal=MONGODB_PASSWORD="$mongo_password" \
  --from-literal=MONGODB_URL="mongodb://root:${mongo_password}@baret-mongodb:27017/?authSource=admin" \
  --from-literal=POSTGRES_PASSWORD="$postgres_password" \
  --from-literal=POSTGRES_URL="postgres://baret:${postgres_password}@baret-postgresql:5432/baret"
echo "created secret $ns/baret-dev"
