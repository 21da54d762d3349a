#!/bin/bash
# Provenance: the benchmark record names the git commit of the spec's
# repository and whether it was dirty; plan and submit warn about a dirty
# tree (or a spec not committed), and say nothing for a clean one.
. "$(dirname "$0")/lib.sh"
command -v git > /dev/null || { echo "not ok - git is needed (install-deps installs it)"; exit 1; }

repo=$T_ROOT/repo
mkdir -p "$repo" && cd "$repo"
git init -q . && git config user.email t@example.org && git config user.name t
write_spec spec.yaml 'name: prov
command: [true, "{x}"]
parameters: {x: [1, 2]}'
git add spec.yaml && git commit -qm spec
commit=$(git rev-parse HEAD)

"$SBCTL" plan spec.yaml > /dev/null 2> plan.err
expect "clean tree: plan says nothing" "$(cat plan.err)" ""
"$SBCTL" submit spec.yaml --json > s.json 2> submit.err
expect "clean tree: submit says nothing" "$(grep -c warning submit.err)" 0
dir=$(jqf s.json .benchmark.dir)
expect "record names the commit" "$(jq -r .provenance.git.commit "$dir/benchmark.json")" "$commit"
expect "record says clean" "$(jq -r .provenance.git.dirty "$dir/benchmark.json")" false
expect "a clean tree has no diff digest" "$(jq -r .provenance.git.diff_sha256 "$dir/benchmark.json")" null
expect "record names the repository" "$(jq -r .provenance.git.root "$dir/benchmark.json")" "$(cd "$repo" && pwd -P)"
expect "record names the sbctl version" "$(jq -r .provenance.sbctl_version "$dir/benchmark.json")" \
	"$("$SBCTL" --version | cut -d' ' -f2)"
expect "record names the Slurm version" "$(jq -r .provenance.slurm_version "$dir/benchmark.json")" 22.05.8

# a change to a tracked file makes the tree dirty
echo "# changed" >> other.txt && git add other.txt && git commit -qm other && echo more >> other.txt
write_spec spec2.yaml 'name: prov2
command: [true, "{x}"]
parameters: {x: [1, 2]}'
git add spec2.yaml && git commit -qm spec2 && echo more >> other.txt
"$SBCTL" plan spec2.yaml > /dev/null 2> plan.err
expect_match "dirty tree: plan warns" "$(cat plan.err)" "warning: the repository .* has changes not in commit"
"$SBCTL" submit spec2.yaml --json > s.json 2> submit.err
expect_match "dirty tree: submit warns" "$(cat submit.err)" "warning: the repository"
expect "record says dirty" "$(jq -r .provenance.git.dirty "$(jqf s.json .benchmark.dir)/benchmark.json")" true
expect "record has the digest of the uncommitted changes" \
	"$(jq -r .provenance.git.diff_sha256 "$(jqf s.json .benchmark.dir)/benchmark.json")" \
	"$(git diff HEAD --binary --no-color --no-ext-diff --no-textconv | sha256sum | cut -c1-64)"

# a spec that is not committed is not described by the commit
git checkout -q other.txt
write_spec spec3.yaml 'name: prov3
command: [true]'
"$SBCTL" plan spec3.yaml > /dev/null 2> plan.err
expect_match "uncommitted spec: plan warns" "$(cat plan.err)" "or the spec is not committed"

# outside any repository: no git facts, no warning
# (another tag: the same spec would be the benchmark submitted from the repository)
mkdir -p "$T_ROOT/plain" && cp spec.yaml "$T_ROOT/plain/" && cd "$T_ROOT/plain"
echo 'tag: plain' >> spec.yaml
"$SBCTL" submit spec.yaml --root "$T_ROOT/runs2" --json > s.json 2> submit.err
expect "no repository: no warning" "$(grep -c warning submit.err)" 0
expect "no repository: git is null" "$(jq -r .provenance.git "$(jqf s.json .benchmark.dir)/benchmark.json")" null

t_done
