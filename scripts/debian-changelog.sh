#!/bin/sh
# Prints debian/changelog for the package of version $1 (what `rotationd --version` prints). The entry is
# dated with the last commit, so that the same commit always builds the same package; outside a git
# checkout it is dated now.
set -eu
version=${1:?usage: debian-changelog.sh VERSION}
cd "$(dirname "$0")/.."
epoch=$(git log -1 --format=%ct 2>/dev/null || true)
date=$(LC_ALL=C date -R ${epoch:+-d "@$epoch"})
cat <<END
rotationd ($version) unstable; urgency=medium

  * Release $version.

 -- rotationd developers <dev@rotationd.invalid>  $date
END
