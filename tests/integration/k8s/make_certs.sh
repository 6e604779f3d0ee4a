#!/usr/bin/env bash
# The certificates and keys every loopback test API server needs, written into WORK: a CA
# (ca.crt, ca.key), the API server's serving certificate for 127.0.0.1 (serving.crt,
# serving.key) and the service-account signing key (sa.key, sa.pub). Used by run.sh here and
# by ../e2e/run.sh, which add what only they need.
#
#   make_certs.sh WORK CA_NAME
set -uo pipefail
cd "$1" || exit 1
openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.crt -days 2 \
  -subj "/CN=$2" 2>/dev/null &&
openssl req -newkey rsa:2048 -nodes -keyout serving.key -out serving.csr \
  -subj "/CN=kube-apiserver" 2>/dev/null &&
printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n' >serving.ext &&
openssl x509 -req -in serving.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 2 \
  -extfile serving.ext -out serving.crt 2>/dev/null &&
openssl genrsa -out sa.key 2048 2>/dev/null &&
openssl rsa -in sa.key -pubout -out sa.pub 2>/dev/null
