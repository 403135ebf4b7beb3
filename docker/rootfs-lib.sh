# Helpers to assemble a minimal root filesystem from binaries of this machine, for `docker import`.
# No registry is reachable where CI runs, so every image is made from files already on the host.
# Source this file; functions take the root filesystem directory as their first argument.

# Copy one file into the rootfs at the same path, keeping symlinks as symlinks and copying their targets too.
rootfs_copy() {
  local root="$1" path="$2"
  [ -e "$path" ] || { echo "rootfs: missing $path" >&2; return 1; }
  mkdir -p "$root$(dirname "$path")"
  if [ -L "$path" ]; then
    cp -a "$path" "$root$path"
    local target
    target="$(readlink -f "$path")"
    [ -e "$root$target" ] || rootfs_copy "$root" "$target"
  else
    [ -e "$root$path" ] || cp -a "$path" "$root$path"
  fi
}

# Copy an executable or shared object plus every library `ldd` lists for it (and the loader).
rootfs_add_binary() {
  local root="$1" bin="$2" lib
  rootfs_copy "$root" "$bin" || return 1
  # ldd prints "name => /path (addr)" or "/path (addr)"; vdso has no path.
  for lib in $(ldd "$bin" 2>/dev/null | awk '/=>/ { if ($3 ~ /^\//) print $3; next } $1 ~ /^\// { print $1 }'); do
    [ -e "$root$lib" ] || rootfs_copy "$root" "$lib" || return 1
  done
}

# Minimal /etc, /tmp and a few files that programs look up at start.
rootfs_base() {
  local root="$1" d
  # Keep the host's merged-/usr layout (/lib -> usr/lib, ...) so that library paths from ldd resolve alike.
  for d in lib lib64 lib32 bin sbin; do
    if [ -L "/$d" ]; then
      mkdir -p "$root/$(readlink "/$d")"
      ln -sfn "$(readlink "/$d")" "$root/$d"
    fi
  done
  mkdir -p "$root/etc" "$root/tmp" "$root/dev" "$root/proc" "$root/sys" "$root/root"
  chmod 1777 "$root/tmp"
  printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n' >"$root/etc/passwd"
  printf 'root:x:0:\nnogroup:x:65534:\n' >"$root/etc/group"
  printf 'hosts: files dns\npasswd: files\ngroup: files\n' >"$root/etc/nsswitch.conf"
  printf '127.0.0.1 localhost\n::1 localhost ip6-localhost\n' >"$root/etc/hosts"
}

# `docker import` the rootfs as IMAGE, with extra --change instructions given after it.
rootfs_import() {
  local root="$1" image="$2"
  shift 2
  local changes=() c
  for c in "$@"; do changes+=(--change "$c"); done
  local old
  old="$(docker image inspect --format '{{.Id}}' "$image" 2>/dev/null || true)"
  tar --numeric-owner -C "$root" -cf - . | docker import "${changes[@]}" - "$image" >/dev/null
  rootfs_drop_replaced "$image" "$old"
}

# After IMAGE was rebuilt, remove the image it replaced (OLD_ID), unless something still uses it.
rootfs_drop_replaced() {
  local image="$1" old="$2" new
  new="$(docker image inspect --format '{{.Id}}' "$image" 2>/dev/null || true)"
  if [ -n "$old" ] && [ "$old" != "$new" ]; then docker rmi "$old" >/dev/null 2>&1 || true; fi
}
