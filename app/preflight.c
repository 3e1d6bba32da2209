/* SPDX-License-Identifier: BSD-3-Clause */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <limits.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "exit.h"
#include "msg.h"
#include "cli.h"
#include "preflight.h"

/* The value of key= in a devargs string ("net_x0,k1=v1,k2=v2"), or false. */
static bool
devarg(const char *dev, const char *key, char *out, size_t cap)
{
	size_t klen = strlen(key);

	for (const char *p = strchr(dev, ','); p != NULL;
	     p = strchr(p + 1, ',')) {
		size_t n;

		if (strncmp(p + 1, key, klen) != 0 || p[1 + klen] != '=')
			continue;
		n = strcspn(p + 2 + klen, ",");
		if (n >= cap)
			n = cap - 1;
		memcpy(out, p + 2 + klen, n);
		out[n] = '\0';
		return true;
	}
	return false;
}

static bool
is_driver(const char *dev, const char *name)
{
	size_t n = strlen(name);

	/* "net_af_xdp0,...": the name, an optional instance number, ','. */
	if (strncmp(dev, name, n) != 0)
		return false;
	dev += n;
	while (*dev >= '0' && *dev <= '9')
		dev++;
	return *dev == ',' || *dev == '\0';
}

/* Does process pid have an fd whose link is target (a const char *)? */
static bool
has_fd_link(const char *pid, const void *target)
{
	char path[600], link[128];
	struct dirent *f;
	bool found = false;
	DIR *fds;

	snprintf(path, sizeof(path), "/proc/%s/fd", pid);
	fds = opendir(path);
	if (fds == NULL)
		return false;
	while (!found && (f = readdir(fds)) != NULL) {
		ssize_t n;

		snprintf(path, sizeof(path), "/proc/%s/fd/%s", pid, f->d_name);
		n = readlink(path, link, sizeof(link) - 1);
		if (n <= 0)
			continue;
		link[n] = '\0';
		found = strcmp(link, target) == 0;
	}
	closedir(fds);
	return found;
}

/* Does process pid hold the BPF program *(const unsigned *)prog_id open? */
static bool
has_bpf_prog(const char *pid, const void *prog_id)
{
	char path[600], line[128], want[32];
	struct dirent *f;
	bool found = false;
	DIR *fds;

	snprintf(want, sizeof(want), "prog_id:\t%u\n",
		 *(const unsigned *)prog_id);
	snprintf(path, sizeof(path), "/proc/%s/fdinfo", pid);
	fds = opendir(path);
	if (fds == NULL)
		return false;
	while (!found && (f = readdir(fds)) != NULL) {
		FILE *fi;

		if (f->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/fdinfo/%s", pid,
			 f->d_name);
		fi = fopen(path, "r");
		if (fi == NULL)
			continue;
		while (!found && fgets(line, sizeof(line), fi) != NULL)
			found = strcmp(line, want) == 0;
		fclose(fi);
	}
	closedir(fds);
	return found;
}

/* " by pid N (COMM)" of the first process for which holds() is true; ""
 * when none is. */
static void
holder_find(bool (*holds)(const char *pid, const void *arg), const void *arg,
	    char *out, size_t len)
{
	DIR *proc = opendir("/proc");
	struct dirent *p;

	out[0] = '\0';
	if (proc == NULL)
		return;
	while (out[0] == '\0' && (p = readdir(proc)) != NULL) {
		char path[300], comm[64] = "?";
		FILE *c;

		if (p->d_name[0] < '1' || p->d_name[0] > '9' ||
		    !holds(p->d_name, arg))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", p->d_name);
		c = fopen(path, "r");
		if (c != NULL) {
			if (fgets(comm, sizeof(comm), c) != NULL)
				comm[strcspn(comm, "\n")] = '\0';
			fclose(c);
		}
		snprintf(out, len, " by pid %.16s (%.32s)", p->d_name, comm);
	}
	closedir(proc);
}

/* " by pid N (COMM)" of the first process with an fd whose link is target. */
static void
holder_of_fd_link(const char *target, char *out, size_t len)
{
	holder_find(has_fd_link, target, out, len);
}

/* " by pid N (COMM)" of a process holding the BPF program prog_id open. */
static void
holder_of_prog(unsigned prog_id, char *out, size_t len)
{
	holder_find(has_bpf_prog, &prog_id, out, len);
}

/* Does the named network namespace (/run/netns/NAME) have iface? */
static bool
netns_has(const char *name, const char *iface)
{
	char path[300];
	pid_t pid;
	int st;

	snprintf(path, sizeof(path), "/run/netns/%.255s", name);
	pid = fork();
	if (pid == 0) {
		/* A child: setns() would move this whole process. */
		int fd = open(path, O_RDONLY | O_CLOEXEC);

		_exit(fd >= 0 && setns(fd, CLONE_NEWNET) == 0 &&
				      if_nametoindex(iface) != 0
			      ? 0
			      : 1);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return false;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

/* The first network namespace in /run/netns that has iface, or false. */
static bool
netns_find(const char *iface, char *out, size_t cap)
{
	DIR *d = opendir("/run/netns");
	struct dirent *e;
	bool found = false;

	if (d == NULL)
		return false;
	while (!found && (e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.' || !netns_has(e->d_name, iface))
			continue;
		snprintf(out, cap, "%s", e->d_name);
		found = true;
	}
	closedir(d);
	return found;
}

static int
check_iface(const char *dev, const char *iface, bool xdp)
{
	char path[PATH_MAX], ns[256];
	unsigned ifindex;
	__u32 prog_id = 0;

	snprintf(path, sizeof(path), "/sys/class/net/%s", iface);
	if (strlen(iface) >= IF_NAMESIZE || access(path, F_OK) != 0) {
		if (netns_find(iface, ns, sizeof(ns)))
			app_err("interface %s (--vdev %s) is not in this "
				"network namespace but in '%s': run 'ip netns "
				"exec %s latprobe ...'",
				iface, dev, ns, ns);
		else
			app_err("interface %s (--vdev %s) does not exist "
				"here, nor in any namespace of 'ip netns' "
				"('ip link' lists this one's; tools/testbed up "
				"creates the testbed's)",
				iface, dev);
		return EXIT_SETUP;
	}
	if (!xdp)
		return EXIT_OK;
	ifindex = if_nametoindex(iface);
	if (ifindex != 0 && bpf_xdp_query_id((int)ifindex, 0, &prog_id) == 0 &&
	    prog_id != 0) {
		char who[128];

		holder_of_prog(prog_id, who, sizeof(who));
		if (who[0] != '\0')
			app_err("interface %s is in use: its XDP program %u "
				"is held%s; stop that process first",
				iface, prog_id, who);
		else
			app_err("interface %s already has XDP program %u "
				"attached and no process holds it (left by a "
				"killed af_xdp process?): 'ip link set dev %s "
				"xdp off' removes it",
				iface, prog_id, iface);
		return EXIT_SETUP;
	}
	return EXIT_OK;
}

/* A server socket something listens on: /proc/net/unix (this namespace). */
static int
check_memif(const char *dev)
{
	char role[16] = "client", sock[128] = "/run/memif.sock", abs[8] = "yes";
	char want[140], line[512];
	FILE *f;
	unsigned long inode = 0;

	devarg(dev, "role", role, sizeof(role));
	devarg(dev, "socket", sock, sizeof(sock));
	devarg(dev, "socket-abstract", abs, sizeof(abs));
	if (strcmp(role, "server") != 0 && strcmp(role, "master") != 0)
		return EXIT_OK;
	snprintf(want, sizeof(want), "%s%s", strcmp(abs, "no") == 0 ? "" : "@",
		 sock);
	f = fopen("/proc/net/unix", "r");
	if (f == NULL)
		return EXIT_OK;
	while (fgets(line, sizeof(line), f) != NULL) {
		unsigned long flags, ino;
		unsigned st;
		int off = 0;

		/* Num RefCount Protocol Flags Type St Inode Path */
		if (sscanf(line, "%*s %*x %*x %lx %*x %x %lu %n", &flags, &st,
			   &ino, &off) < 3 ||
		    off == 0)
			continue;
		line[strcspn(line, "\n")] = '\0';
		/* __SO_ACCEPTCON: a listening socket. */
		if ((flags & 0x10000) != 0 && strcmp(line + off, want) == 0) {
			inode = ino;
			break;
		}
	}
	fclose(f);
	if (inode != 0) {
		char target[64], who[128];

		snprintf(target, sizeof(target), "socket:[%lu]", inode);
		holder_of_fd_link(target, who, sizeof(who));
		app_err("memif socket %s (--vdev %s) already has a server "
			"listening%s: stop it first, or give this one another "
			"socket=",
			want, dev, who);
		return EXIT_SETUP;
	}
	return EXIT_OK;
}

static int
check_vdev(const char *dev)
{
	char iface[64];

	if (is_driver(dev, "net_af_xdp") || is_driver(dev, "eth_af_xdp")) {
		if (devarg(dev, "iface", iface, sizeof(iface)))
			return check_iface(dev, iface, true);
		return EXIT_OK;
	}
	if (is_driver(dev, "net_af_packet") ||
	    is_driver(dev, "eth_af_packet")) {
		if (devarg(dev, "iface", iface, sizeof(iface)))
			return check_iface(dev, iface, false);
		return EXIT_OK;
	}
	if (is_driver(dev, "net_pcap")) {
		static const char *const keys[] = {"iface", "rx_iface",
						   "rx_iface_in", "tx_iface"};

		for (unsigned k = 0; k < 4; k++)
			if (devarg(dev, keys[k], iface, sizeof(iface)) &&
			    check_iface(dev, iface, false) != EXIT_OK)
				return EXIT_SETUP;
		return EXIT_OK;
	}
	if (is_driver(dev, "net_memif"))
		return check_memif(dev);
	return EXIT_OK;
}

int
preflight_eal(int argc, char *const *argv)
{
	for (int i = 1; i < argc; i++) {
		const char *dev = NULL;

		if (strcmp(argv[i], "--vdev") == 0 && i + 1 < argc)
			dev = argv[++i];
		else if (strncmp(argv[i], "--vdev=", 7) == 0)
			dev = argv[i] + 7;
		if (dev != NULL && check_vdev(dev) != EXIT_OK)
			return EXIT_SETUP;
	}
	return EXIT_OK;
}

bool
preflight_udp_holder(uint32_t addr, uint16_t port, char *out, size_t len)
{
	char line[512];
	FILE *f = fopen("/proc/net/udp", "r");
	bool found = false;

	out[0] = '\0';
	if (f == NULL)
		return false;
	while (fgets(line, sizeof(line), f) != NULL) {
		unsigned a, p;
		unsigned long inode;

		/* sl local_address rem_address st tx:rx tr:tm retr uid timeout
		 * inode; the address is in network order, printed as a u32. */
		if (sscanf(line, " %*s %x:%x %*s %*s %*s %*s %*s %*s %*s %lu",
			   &a, &p, &inode) != 3)
			continue;
		if (p == port && (ntohl(a) == addr || a == 0) && inode != 0) {
			char target[64];

			snprintf(target, sizeof(target), "socket:[%lu]", inode);
			holder_of_fd_link(target, out, len);
			found = true;
			break;
		}
	}
	fclose(f);
	return found;
}
