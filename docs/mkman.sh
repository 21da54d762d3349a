#!/bin/sh
# mkman.sh SRC.md NAME SECTION VERSION OUT DOCDIR [WHAT]: renders a reference page
# of docs/ (written as a man page: '# name(1)' then NAME, SYNOPSIS, ...
# sections) into roff with go-md2man.  The first line becomes the page's
# title line.  A reference to another page of docs/ ("docs/spec.md", or a
# link "(spec.md)") reads as the man page when there is one
# ("sbctl-status(1)", "libsbench(3)"), else as the installed copy of the
# page in DOCDIR (an install has no docs/ directory).  A text line that
# begins with ' or .. (a quote, an ellipsis in an example) would be read as
# a roff request and vanish: it gets a \& before it.
# mantables.awk then fits each table to an 80-column terminal and leaves
# the text left-adjusted, so that 'man --warnings' says nothing.
# A page written as a plain document (docs/spec.md) gets WHAT as its NAME
# section, and its text as the DESCRIPTION.
set -eu
src=$1 name=$2 section=$3 version=$4 out=$5 docdir=$6 what=${7:-}
{
	printf '# %s %s "" "sbench %s" "sbench manual"\n' "$name" "$section" "$version"
	[ -z "$what" ] || printf '\n## NAME\n\n%s \\- %s\n\n## DESCRIPTION\n' "$name" "$what"
	tail -n +2 "$src" | sed -E \
		-e 's#\]\(((sbctl|sbagent)[a-z-]*)\.md\)#](\1(1))#g' \
		-e 's#\]\(libsbench\.md\)#](libsbench(3))#g' \
		-e 's#\]\(spec\.md\)#](sbench-spec(5))#g' \
		-e 's#\]\(classification\.md\)#](sbench-classes(7))#g' \
		-e 's#\]\(([a-z0-9-]+)\.md\)#](docs/\1.md)#g' \
		-e 's#docs/((sbctl|sbagent)[a-z-]*)\.md#\1(1)#g' \
		-e 's#docs/libsbench\.md#libsbench(3)#g' \
		-e 's#docs/spec\.md#sbench-spec(5)#g' \
		-e 's#docs/classification\.md#sbench-classes(7)#g' \
		-e "s#docs/([a-z0-9-]+)\\.md#$docdir/\\1.md#g"
} | go-md2man | sed -E -e "s/^'/\\\\\&'/" -e 's/^\.\./\\\&../' | awk -f "$(dirname "$0")/mantables.awk" > "$out.tmp"
mv "$out.tmp" "$out"
