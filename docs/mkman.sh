#!/bin/sh
# mkman.sh SRC.md NAME SECTION VERSION OUT: renders a reference page of docs/
# (written as a man page: '# name(1)' then NAME, SYNOPSIS, ... sections) into
# roff with go-md2man.  The first line becomes the page's title line; links
# to other pages of docs/ read as their file names.
set -eu
src=$1 name=$2 section=$3 version=$4 out=$5
{
	printf '# %s %s "" "sbench %s" "sbench manual"\n' "$name" "$section" "$version"
	tail -n +2 "$src"
} | go-md2man > "$out.tmp"
mv "$out.tmp" "$out"
