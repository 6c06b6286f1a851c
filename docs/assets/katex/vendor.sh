#!/usr/bin/env bash
# Refresh the KaTeX the documentation site serves (no CDN: the site renders its mathematics with no network).
#   docs/assets/katex/vendor.sh 0.16.47
# Needs npm (it only asks the npm registry for the package's tarball); writes the files listed in VERSION.
set -euo pipefail
version=${1:?usage: vendor.sh VERSION}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$work" && npm pack --silent "katex@$version" >/dev/null && tar xzf "katex-$version.tgz")
rm -rf "$here/fonts" && mkdir -p "$here/fonts"
cp "$work/package/dist/katex.min.js" "$work/package/dist/katex.min.css" "$here/"
cp "$work/package/dist/fonts/"*.woff2 "$here/fonts/"
cp "$work/package/LICENSE" "$here/LICENSE"
sum=$(sha256sum "$work/katex-$version.tgz" | cut -d' ' -f1)
cat >"$here/VERSION" <<TXT
katex $version from the npm registry (https://registry.npmjs.org/katex/-/katex-$version.tgz,
sha256 $sum): dist/katex.min.js, dist/katex.min.css,
the .woff2 fonts (every browser the site supports reads woff2; the CSS's .woff/.ttf fallbacks are never requested) and
the MIT LICENSE. Refreshed by docs/assets/katex/vendor.sh.
TXT
echo "KaTeX $version in $here"
