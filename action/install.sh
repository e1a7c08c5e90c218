#!/usr/bin/env bash
# Installs a jstk release for the GitHub Action (action.yml): downloads the archive of the
# runner's platform and SHA256SUMS, checks the archive's digest, unpacks jstk into
# $RUNNER_TEMP and puts it on the PATH of the later steps.
#
# JSTK_VERSION: the release (default: the version in server.json beside this action, i.e. the
# release of the action's own version). JSTK_RELEASE_BASE_URL replaces the download location
# (.ci/run points it at a local build with file://).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
version=${JSTK_VERSION:-}
if [ -z "$version" ]; then
  version=$(sed -n 's/^  "version": "\(.*\)",$/\1/p' "$here/server.json" | head -n 1)
fi
version=${version#v}
[ -n "$version" ] || { echo "::error::jstk: no version to install" >&2; exit 2; }
base=${JSTK_RELEASE_BASE_URL:-https://github.com/jstk-dev/jstk/releases/download/v$version}

case "${RUNNER_OS:-}" in
  Linux) os=linux ;;
  macOS) os=darwin ;;
  Windows) os=windows ;;
  *) echo "::error::jstk: no release for the runner OS '${RUNNER_OS:-}'" >&2; exit 2 ;;
esac
case "${RUNNER_ARCH:-}" in
  X64) arch=amd64 ;;
  ARM64) arch=arm64 ;;
  *) echo "::error::jstk: no release for the runner architecture '${RUNNER_ARCH:-}'" >&2; exit 2 ;;
esac
ext=tar.gz
[ "$os" = windows ] && ext=zip
archive=jstk_${version}_${os}_${arch}.${ext}

dir=${RUNNER_TEMP:?}/jstk-$version-$os-$arch
mkdir -p "$dir"
cd "$dir"
curl -fsSL --retry 3 -o "$archive" "$base/$archive"
curl -fsSL --retry 3 -o SHA256SUMS "$base/SHA256SUMS"
grep -E "^[0-9a-f]{64}  ${archive//./\\.}\$" SHA256SUMS > archive.sha256 ||
  { echo "::error::jstk: $archive is not listed in SHA256SUMS" >&2; exit 2; }
if command -v sha256sum >/dev/null; then
  sha256sum --check --quiet archive.sha256
else
  shasum -a 256 --check --quiet archive.sha256
fi
if [ "$ext" = zip ]; then
  unzip -o -q "$archive"
else
  tar -xzf "$archive"
fi
echo "$dir" >> "${GITHUB_PATH:?}"
"$dir/jstk" --version
