#!/bin/sh
# Install this example's dependencies (@aws-sdk/client-bedrock-runtime and its HTTP/1.1 handler) from the npm
# registry into examples/node_adapter/node_modules, exactly as package-lock.json pins them. A second run is a
# no-op while node_modules still matches the lock file.
set -eu
cd "$(dirname "$0")"
stamp=node_modules/.installed-package-lock.json
if [ -f "$stamp" ] && cmp -s package-lock.json "$stamp"; then
    echo "node_modules matches package-lock.json; nothing to install"
    exit 0
fi
if [ -f package-lock.json ]; then
    npm ci --no-audit --no-fund
else
    npm install --no-audit --no-fund
fi
cp package-lock.json "$stamp"
