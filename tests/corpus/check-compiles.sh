#!/usr/bin/env bash
# Compiles every corpus project, and the changed version of every case, with javac.
# It also checks that each case applies (every old text found exactly once) and that each
# `expect:` anchor matches exactly one line of the changed file: the same rules as the
# cargo harness (server/analysis/tests/corpus.rs). Needs a JDK (17) and perl.
#
#   bash tests/corpus/check-compiles.sh                 # all projects, cases and held-out cases
#   bash tests/corpus/check-compiles.sh cases/x.case    # some cases
#   bash tests/corpus/check-compiles.sh held-out        # every case of a folder
set -euo pipefail
shopt -s nullglob
here="$(cd "$(dirname "$0")" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# Applies the case ($1) to the tree ($2) in place; checks the anchors.
apply() {
    perl -e '
use strict;
use warnings;
my ($case, $tree) = @ARGV;
open(my $fh, "<", $case) or die "$case: $!\n";
my @lines = map { s/\r?\n\z//r } <$fh>;
close $fh;
my (@expects, %header);
my $i = 0;
while ($i < @lines && $lines[$i] !~ /^--- edit /) {
    my $l = $lines[$i++];
    next if $l =~ /^\s*(#.*)?$/;
    $l =~ /^([a-z]+):\s*(.*?)\s*$/ or die "$case: not a header line: $l\n";
    if ($1 eq "expect") { push @expects, $2 } else { $header{$1} = $2 }
}
for my $key (qw(project kind summary)) { die "$case: no $key:\n" unless defined $header{$key} }
my $file;
my $edits = 0;
while ($i < @lines) {
    my $l = $lines[$i++];
    if ($l =~ /^--- edit (\S+)\s*$/) { $file = $1; next }
    next if $l =~ /^\s*$/;
    die "$case: expected <<< but found: $l\n" unless $l eq "<<<" && defined $file;
    my (@old, @new);
    push @old, $lines[$i++] while $i < @lines && $lines[$i] ne "===";
    die "$case: unterminated edit (no ===)\n" unless $i++ < @lines;
    push @new, $lines[$i++] while $i < @lines && $lines[$i] ne ">>>";
    die "$case: unterminated edit (no >>>)\n" unless $i++ < @lines;
    my $old = join("", map { "$_\n" } @old);
    my $new = join("", map { "$_\n" } @new);
    die "$case: empty old text in $file\n" if $old eq "";
    my $path = "$tree/$file";
    open(my $in, "<", $path) or die "$case: $path: $!\n";
    my $text = do { local $/; <$in> };
    close $in;
    my ($count, $at, $pos) = (0, -1, 0);
    while ((my $found = index($text, $old, $pos)) >= 0) { $count++; $at = $found; $pos = $found + 1 }
    die "$case: old text found $count times in $file (must be once):\n$old" unless $count == 1;
    substr($text, $at, length $old) = $new;
    open(my $out, ">", $path) or die "$case: $path: $!\n";
    print $out $text;
    close $out;
    $edits++;
}
die "$case: no edits\n" unless $edits;
die "$case: benign cases have no expect lines\n" if $header{kind} eq "benign" && @expects;
die "$case: a regression needs expect lines\n" if $header{kind} ne "benign" && !@expects;
for my $e (@expects) {
    $e =~ /^(\S+?):\s(.*)$/ or die "$case: malformed expect: $e\n";
    my ($path, $needle) = ($1, $2 =~ s/^\s+|\s+$//gr);
    open(my $in, "<", "$tree/$path") or die "$case: expect: $path: $!\n";
    my $n = grep { index($_, $needle) >= 0 } map { s/\r?\n\z//r } <$in>;
    close $in;
    die "$case: expect anchor matches $n lines of $path (must be one): $needle\n" unless $n == 1;
}
print "$header{project}\n";
' "$1" "$2"
}

fail=0
for project in "$here"/projects/*/; do
    name="$(basename "$project")"
    if ! javac -nowarn -d "$work/base-$name" $(find "$project" -name '*.java'); then
        echo "FAIL  project $name does not compile"
        fail=1
    fi
done

if [ $# -eq 0 ]; then set -- "$here/cases" "$here/held-out"; fi
cases=()
for arg in "$@"; do
    if [ -d "$arg" ]; then cases+=("$arg"/*.case); else cases+=("$arg"); fi
done
for case in "${cases[@]}"; do
    id="$(basename "$case" .case)"
    project="$(sed -n 's/^project:[[:space:]]*\([^[:space:]]*\).*/\1/p' "$case" | head -n1)"
    tree="$work/case-$id"
    rm -rf "$tree"
    if [ ! -d "$here/projects/$project" ]; then
        echo "FAIL  $id: no project '$project'"
        fail=1
        continue
    fi
    cp -R "$here/projects/$project" "$tree"
    if ! apply "$case" "$tree" >/dev/null; then
        echo "FAIL  $id: does not apply"
        fail=1
        continue
    fi
    if javac -nowarn -d "$tree/classes" $(find "$tree/src" -name '*.java') 2>"$tree/javac.log"; then
        echo "ok    $id"
    else
        echo "FAIL  $id: does not compile"
        cat "$tree/javac.log"
        fail=1
    fi
done
exit $fail
