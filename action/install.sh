#!/usr/bin/env bash
# Installs a jstk release for the GitHub Action (action.yml): downloads the archive of the
# runner's platform, checks it against the digest this action carries for that release
# (action/digests/<version>.sha256, written by `go run ./cmd/release -action-digests dist` and
# committed with the action; a digest downloaded from the same release would not catch a
# replaced release), unpacks jstk into $RUNNER_TEMP and puts it on the PATH of the later steps.
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

digests=$here/action/digests/$version.sha256
[ -f "$digests" ] || {
  echo "::error::jstk: this action carries no digests for jstk $version (action/digests/$version.sha256), so it cannot check the archive; use the action of that release (uses: jstk-dev/jstk@v$version) or set version to a release it carries: $(cd "$here/action/digests" 2>/dev/null && ls | sed -n 's/\.sha256$//p' | tr '\n' ' ')" >&2
  exit 2
}
want=$(sed -n "s/^\([0-9a-f]\{64\}\)  ${archive//./\\.}\$/\1/p" "$digests")
[ -n "$want" ] || { echo "::error::jstk: $archive has no digest in action/digests/$version.sha256" >&2; exit 2; }

dir=${RUNNER_TEMP:?}/jstk-$version-$os-$arch
mkdir -p "$dir"
cd "$dir"
curl -fsSL --retry 3 -o "$archive" "$base/$archive"
if command -v sha256sum >/dev/null; then
  got=$(sha256sum < "$archive" | cut -d' ' -f1)
else
  got=$(shasum -a 256 < "$archive" | cut -d' ' -f1)
fi
if [ "$got" != "$want" ]; then
  rm -f "$archive"
  echo "::error::jstk: $base/$archive has SHA-256 $got, but this action carries $want for it (action/digests/$version.sha256): the archive is not the one released; not installed" >&2
  exit 2
fi
if [ "$ext" = zip ]; then
  unzip -o -q "$archive"
else
  tar -xzf "$archive"
fi
echo "$dir" >> "${GITHUB_PATH:?}"
"$dir/jstk" --version
