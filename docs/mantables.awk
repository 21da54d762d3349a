# mantables.awk: fits the tables of a roff page (from go-md2man) to an
# 80-column terminal, so that 'man --warnings' says nothing.  Each table
# (.TS ... .TE) is read whole: its cells (plain, or text blocks T{ ... T})
# are measured, each column gets a width (its widest cell when the table
# fits; else at least its longest word, the rest of the line shared among
# the columns that want more), and every cell is written as a text block of
# that width, which tbl wraps.  The page is left-adjusted and not
# hyphenated: narrow cells and long identifiers do not stretch lines.
#
# AVAIL is the width in ens a table may take (80 columns, less man's indent
# of 7, the box around the table and a margin).

BEGIN { AVAIL = 66; GUTTER = 3 }

# the visible length of roff text: font escapes (\fB, \fC, \fR, \fP, \fI)
# and \& take no room
function visible(s) {
	gsub(/\\f[A-Z]|\\f\([A-Z][A-Z]|\\&/, "", s)
	gsub(/\\-/, "-", s)
	return length(s)
}

function longest_word(s,    w, n, i, m, l) {
	gsub(/\\f[A-Z]|\\f\([A-Z][A-Z]|\\&/, "", s)
	n = split(s, w, /[ \n]+/)
	m = 0
	for (i = 1; i <= n; i++) {
		l = length(w[i])
		if (l > m)
			m = l
	}
	return m
}

# a table row: cells separated by tabs, a cell "T{" at the end of a line
# runs to the line that starts with "T}"
function add_row(line,    parts, n, i) {
	rows++
	ncell[rows] = 0
	for (;;) {
		n = split(line, parts, "\t")
		for (i = 1; i <= n; i++) {
			if (parts[i] == "T{" && i == n) {
				cell[rows, ++ncell[rows]] = block()
				if (blockrest == "")
					return
				line = substr(blockrest, 2) # after the tab
				break
			}
			cell[rows, ++ncell[rows]] = parts[i]
		}
		if (i > n)
			return
	}
}

# the lines of a text block up to "T}" (read from the input); what follows
# "T}" on its line goes to blockrest
function block(    text, l) {
	text = ""
	while ((getline l) > 0) {
		if (substr(l, 1, 2) == "T}") {
			blockrest = substr(l, 3)
			return text
		}
		text = text (text == "" ? "" : "\n") l
	}
	blockrest = ""
	return text
}

function flush(    r, c, cols, want, minw, total, mins, left, open, share, done, k, fmt, line, t, n, lines) {
	cols = 0
	for (r = 1; r <= rows; r++)
		if (ncell[r] > cols)
			cols = ncell[r]
	for (c = 1; c <= cols; c++) {
		want[c] = 1
		minw[c] = 1
		for (r = 1; r <= rows; r++) {
			t = cell[r, c]
			n = split(t, lines, "\n")
			for (k = 1; k <= n; k++)
				if (visible(lines[k]) > want[c])
					want[c] = visible(lines[k])
			if (longest_word(t) > minw[c])
				minw[c] = longest_word(t)
		}
	}
	left = AVAIL - GUTTER * (cols - 1)
	total = 0
	mins = 0
	for (c = 1; c <= cols; c++) {
		total += want[c]
		mins += minw[c]
	}
	if (total <= left) {
		for (c = 1; c <= cols; c++)
			width[c] = want[c]
	} else {
		# every column its longest word, then the rest shared out, a
		# column that wants less than its share taking only that
		for (c = 1; c <= cols; c++) {
			width[c] = mins <= left ? minw[c] : int(left / cols)
			done[c] = width[c] >= want[c]
		}
		left -= mins <= left ? mins : int(left / cols) * cols
		for (;;) {
			open = 0
			for (c = 1; c <= cols; c++)
				open += !done[c]
			if (open == 0 || left <= 0)
				break
			share = int(left / open)
			if (share == 0)
				break
			for (c = 1; c <= cols; c++) {
				if (done[c])
					continue
				k = want[c] - width[c]
				if (k <= share) {
					width[c] += k
					left -= k
					done[c] = 1
				}
			}
			# no column took less than its share: every open one takes it
			k = 0
			for (c = 1; c <= cols; c++)
				k += !done[c] && want[c] - width[c] > share
			if (k == open) {
				for (c = 1; c <= cols; c++)
					if (!done[c])
						width[c] += share
				left -= share * open
				break
			}
		}
	}
	for (k = 1; k <= nfmt; k++) {
		line = ""
		for (c = 1; c <= cols; c++)
			line = line (c > 1 ? " " : "") "lw(" width[c] "n)"
		print line (k == nfmt ? " ." : "")
	}
	for (r = 1; r <= rows; r++) {
		line = ""
		for (c = 1; c <= cols; c++) {
			t = cell[r, c]
			if (t ~ /^[.\047]/) # at a line's start now: not a request
				t = "\\&" t
			line = line (c > 1 ? "\t" : "") "T{\n" t "\nT}"
		}
		print line
	}
	rows = 0
	nfmt = 0
}

/^\.TS$/ { tbl = 1; fmt = 1; opts = 0; rows = 0; nfmt = 0; print; next }
tbl && /^\.TE$/ { flush(); tbl = 0; print; next }
# the options line ("allbox;"), then the format lines, the last ending "."
tbl && fmt && /;$/ && !opts && nfmt == 0 { opts = 1; print; next }
tbl && fmt { nfmt++; if ($0 ~ /\.$/) fmt = 0; next }
tbl { add_row($0); next }
/^\.TH / { print; print ".ad l"; print ".nh"; next }
{ print }
