// The end-to-end test's driver (./driver): the standard library only (the API server reads
// the CRDs' YAML itself), so it builds offline. KWOK and kube-apiserver are built apart
// (build_kwok.sh, ../k8s/build_apiserver.sh).
module caldera.invalid/e2e

go 1.24.0
