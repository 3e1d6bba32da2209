# shellcheck shell=bash
# Case trixie: the virtio case in a Debian 13 guest with DPDK 24.11 (the
# second platform), latprobe built against 24.11.
# Reuses tools/trixie's chroot (/var/cache/latprobe/trixie: Debian 13 with
# DPDK 24.11 and every library latprobe links, made by `tools/trixie
# prepare`): latprobe is built in it (`tools/trixie run`, ninja in
# build-trixie-gcc/ of the tree when tools/trixie check made it, else
# build-trixie-vm/: nothing when it is up to date), and the
# guest's root is a copy of it with the kernel and the lab's tools added,
# cached in $cache/trixie/ (its own stamp: the package list, the init and
# the chroot's stamps), made as the bookworm image is (make_img).
cases_all+=" trixie"

trixie_root=${LP_TRIXIE_ROOT:-/var/cache/latprobe/trixie}
trixie_packages=(linux-image-amd64 kmod iproute2 ethtool procps pciutils python3 sockperf)

# The guest image (cached); the caller holds no lock, this takes the lab's.
trixie_image() {
	local cache=$cache/trixie
	local img=$cache/trixie.img key
	mkdir -p "$cache"
	exec 8>"$cache.lock"
	flock 8
	key=$({
		printf '%s\n' "${trixie_packages[@]}"
		guest_init
		cat "$trixie_root"/.lp-* 2>/dev/null
	} | sha256sum | cut -c1-16)
	if [ -f "$img" ] && [ "$(cat "$cache/stamp" 2>/dev/null)" = "$key" ]; then
		flock -u 8
		return 0
	fi
	local t0=$SECONDS
	lp_log "trixie: guest root from $trixie_root (+ ${trixie_packages[*]})"
	# build_root and make_img read packages, cache and img (dynamic
	# scope): this guest's.
	local -a packages=("${trixie_packages[@]}")
	build_root "$cache/root" "$trixie_root" || return 1
	make_img "$cache/root" || return 1
	echo "$key" >"$cache/stamp"
	rm -rf "$cache/root"
	lp_log "trixie: $img ($(du -sm --apparent-size "$img" | awk '{print $1}') MB), built in $((SECONDS - t0)) s"
	flock -u 8
}

# shellcheck disable=SC2034 # run_case reads these (dynamic scope)
vmcase_trixie() {
	model=virtio-net-pci
	drv=net_virtio
	extra=",iommu_platform=on,disable-legacy=on"
	csum_l4=software
	check_fn=trixie_check
	guest_fn=trixie_guest
	# Booted without nohz_full (tools/vmlab.d/doctor.sh).
	doctor_missing=nohz_full
	cmdline_extra=$(doctor_cmdline nohz_full)
	# (77: run_case counts it skipped; exit 77 would end tools/vmlab check.)
	if [ ! -f "$trixie_root/usr/include/dpdk/rte_version.h" ]; then
		printf '%s: skipped: %s\n' "$LP_PROG" \
			"no Debian 13 chroot with DPDK 24.11 at $trixie_root (sudo tools/trixie prepare)"
		return 77
	fi
	# tools/trixie check's gcc build when there (tools/check runs it
	# first: then nothing to build), else one of this case's own.
	local b=build-trixie-vm
	[ -f "$top/build-trixie-gcc/build.ninja" ] && b=build-trixie-gcc
	lp_log "trixie: latprobe against DPDK 24.11 ($b/, tools/trixie run)"
	"$here/trixie" run sh -c "{ [ -f /src/$b/build.ninja ] || meson setup /src/$b /src -Dbench=false; } &&
		ninja -C /src/$b app/latprobe" >"$cache/trixie-build.log" 2>&1 || {
		tail -20 "$cache/trixie-build.log" >&2
		lp_die "trixie: latprobe does not build against DPDK 24.11 (log: $cache/trixie-build.log)"
	}
	latprobe_bin=$top/$b/app/latprobe
	trixie_image || lp_die "trixie: no guest image"
	img=$cache/trixie/trixie.img
	vm_kernel=$cache/trixie/vmlinuz
	vm_initrd=$cache/trixie/initrd.img
	ok_msg="Debian 13, DPDK 24.11, net_virtio: stamp sockperf stamp8k each $probe_n/$probe_n answered"
}

trixie_guest() {
	doctor_guest
	guest_case
}

# The virtio case's checks, and that it was Debian 13's kernel and 24.11.
trixie_check() {
	local o=$1 bad=0
	check_case "$@" || bad=1
	doctor_check "$o" || bad=1
	grep -q 'on DPDK 24\.11' "$o/info.txt" || {
		echo "FAIL: info is not on DPDK 24.11: $(grep -m1 'on DPDK' "$o/info.txt")"
		bad=1
	}
	echo "  $(grep -m1 'on DPDK' "$o/info.txt")"
	return $bad
}
