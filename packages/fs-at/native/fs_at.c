/*
 * @appliance/fs-at: the few *at system calls the share data deleter (spec 05 §5) needs and Node's fs
 * lacks, relative to a directory handle already open, never through a path whose components could be
 * replaced: openat with O_NOFOLLOW | O_DIRECTORY (and close), fstatat with AT_SYMLINK_NOFOLLOW, unlinkat, and
 * drain(), which streams a directory with getdents64 (one bounded buffer per call) and removes its
 * non-directory entries. No call here ever follows a symbolic link or takes a path with a '/'.
 *
 * Node-API only (context aware: loads in worker threads). Linux only.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <node_api.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define DENTS_BUFFER 32768
#define NAME_MAX_BYTES 255

struct linux_dirent64 {
  uint64_t d_ino;
  int64_t d_off;
  unsigned short d_reclen;
  unsigned char d_type;
  char d_name[];
};

static const char *errno_name(int e) {
  switch (e) {
#define E(x) \
  case x:    \
    return #x;
    E(EPERM) E(ENOENT) E(EIO) E(ENXIO) E(E2BIG) E(EBADF) E(EAGAIN) E(ENOMEM) E(EACCES) E(EFAULT)
    E(EBUSY) E(EEXIST) E(EXDEV) E(ENODEV) E(ENOTDIR) E(EISDIR) E(EINVAL) E(ENFILE) E(EMFILE)
    E(ETXTBSY) E(EFBIG) E(ENOSPC) E(EROFS) E(EMLINK) E(ENAMETOOLONG) E(ENOTEMPTY) E(ELOOP)
    E(ENOTCONN) E(ESHUTDOWN) E(ESTALE) E(EUCLEAN) E(EOVERFLOW) E(EINTR) E(ENOSYS) E(EDQUOT)
    E(ENOTSUP) E(ETIMEDOUT) E(ENOLINK) E(ENOMEDIUM) E(EBADMSG) E(ENODATA)
#undef E
    default:
      return "EUNKNOWN";
  }
}

#define CHECK(call)                                                   \
  do {                                                                \
    if ((call) != napi_ok) {                                          \
      napi_throw_error(env, NULL, "fs-at: a Node-API call failed");   \
      return NULL;                                                    \
    }                                                                 \
  } while (0)

/** Throws an Error with `code` = the errno name (as Node's fs does). */
static napi_value throw_errno(napi_env env, int e, const char *syscall) {
  char message[128];
  snprintf(message, sizeof message, "%s: %s, %s", errno_name(e), strerror(e), syscall);
  napi_value msg, err, code, sys, no;
  napi_create_string_utf8(env, message, NAPI_AUTO_LENGTH, &msg);
  napi_create_error(env, NULL, msg, &err);
  napi_create_string_utf8(env, errno_name(e), NAPI_AUTO_LENGTH, &code);
  napi_create_string_utf8(env, syscall, NAPI_AUTO_LENGTH, &sys);
  napi_create_int32(env, -e, &no);
  napi_set_named_property(env, err, "code", code);
  napi_set_named_property(env, err, "syscall", sys);
  napi_set_named_property(env, err, "errno", no);
  napi_throw(env, err);
  return NULL;
}

/** Reads an entry name (a Buffer) into `out` (NUL-terminated); refuses '', '.', '..', '/' and NUL. */
static int get_name(napi_env env, napi_value value, char out[NAME_MAX_BYTES + 1]) {
  bool is_buffer = false;
  void *data;
  size_t length;
  if (napi_is_buffer(env, value, &is_buffer) != napi_ok || !is_buffer ||
      napi_get_buffer_info(env, value, &data, &length) != napi_ok) {
    napi_throw_type_error(env, NULL, "fs-at: an entry name must be a Buffer");
    return 0;
  }
  if (length == 0 || length > NAME_MAX_BYTES || memchr(data, '/', length) || memchr(data, 0, length) ||
      (length == 1 && ((char *)data)[0] == '.') ||
      (length == 2 && ((char *)data)[0] == '.' && ((char *)data)[1] == '.')) {
    // '..' has its own call (openParent); nothing else may name anything but an entry
    throw_errno(env, EINVAL, "name");
    return 0;
  }
  memcpy(out, data, length);
  out[length] = 0;
  return 1;
}

static int get_int(napi_env env, napi_value value, int32_t *out) {
  if (napi_get_value_int32(env, value, out) != napi_ok) {
    napi_throw_type_error(env, NULL, "fs-at: expected an integer");
    return 0;
  }
  return 1;
}

static int get_bool(napi_env env, napi_value value, bool *out) {
  if (napi_get_value_bool(env, value, out) != napi_ok) {
    napi_throw_type_error(env, NULL, "fs-at: expected a boolean");
    return 0;
  }
  return 1;
}

static const int OPEN_DIR = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;

/** openat(dirfd, name, OPEN_DIR) (retried on EINTR) → the fd as a JS number, or throws. */
static napi_value open_dir(napi_env env, int32_t dirfd, const char *name) {
  napi_value result;
  int fd;
  do fd = openat(dirfd, name, OPEN_DIR);
  while (fd < 0 && errno == EINTR);
  if (fd < 0) return throw_errno(env, errno, "openat");
  CHECK(napi_create_int32(env, fd, &result));
  return result;
}

/** openDirAt(dirfd, name) → fd of subdirectory `name`, never through a symbolic link. */
static napi_value open_dir_at(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  int32_t dirfd;
  char name[NAME_MAX_BYTES + 1];
  if (argc < 2 || !get_int(env, argv[0], &dirfd) || !get_name(env, argv[1], name)) return NULL;
  return open_dir(env, dirfd, name);
}

/** openParent(dirfd) → fd of `..` of an open directory (the caller checks its dev and inode). */
static napi_value open_parent(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  int32_t dirfd;
  if (argc < 1 || !get_int(env, argv[0], &dirfd)) return NULL;
  return open_dir(env, dirfd, "..");
}

/** close(fd) of a handle opened by openDirAt or openParent. */
static napi_value close_fd(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  int32_t fd;
  if (argc < 1 || !get_int(env, argv[0], &fd)) return NULL;
  // Linux closes the descriptor even when close() answers EINTR: never retry
  if (close(fd) != 0 && errno != EINTR) return throw_errno(env, errno, "close");
  return NULL;
}

/** unlinkAt(dirfd, name, isDir): unlinkat, with AT_REMOVEDIR for an (empty) directory. */
static napi_value unlink_at(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  int32_t dirfd;
  bool is_dir;
  char name[NAME_MAX_BYTES + 1];
  if (argc < 3 || !get_int(env, argv[0], &dirfd) || !get_name(env, argv[1], name) ||
      !get_bool(env, argv[2], &is_dir))
    return NULL;
  if (unlinkat(dirfd, name, is_dir ? AT_REMOVEDIR : 0) != 0)
    return throw_errno(env, errno, is_dir ? "rmdir" : "unlink");
  return NULL;
}

/** lstatAt(dirfd, name) → [mode, dev, ino, nlink, blocks], or null when it does not exist. */
static napi_value lstat_at(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2], result, v;
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  int32_t dirfd;
  char name[NAME_MAX_BYTES + 1];
  if (argc < 2 || !get_int(env, argv[0], &dirfd) || !get_name(env, argv[1], name)) return NULL;
  struct stat st;
  if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
    if (errno == ENOENT) {
      CHECK(napi_get_null(env, &result));
      return result;
    }
    return throw_errno(env, errno, "lstat");
  }
  double fields[5] = {(double)st.st_mode, (double)st.st_dev, (double)st.st_ino, (double)st.st_nlink,
                      (double)st.st_blocks};
  CHECK(napi_create_array_with_length(env, 5, &result));
  for (uint32_t i = 0; i < 5; i++) {
    CHECK(napi_create_double(env, fields[i], &v));
    CHECK(napi_set_element(env, result, i, v));
  }
  return result;
}

static int stops_branch(int e) {
  return e == EROFS || e == EIO || e == ENODEV || e == ENXIO || e == ENOTCONN || e == ESHUTDOWN ||
         e == EUCLEAN || e == ESTALE;
}

/*
 * drain(dirfd, dryRun, rewind) → [done, files, bytes, subdirs, failures, tally]
 *
 * Reads one getdents64 buffer (DENTS_BUFFER bytes) of the open directory `dirfd` (from its start when
 * `rewind`) and, for each entry but '.' and '..':
 * - a directory (d_type, or fstatat for DT_UNKNOWN or a type that changed): its name is returned in
 *   `subdirs` (latin1 string), nothing else is done;
 * - anything else: fstatat(AT_SYMLINK_NOFOLLOW) for its blocks and link count, then (unless dryRun)
 *   unlinkat(dirfd, name, 0) — a symbolic link is removed as a link. ENOENT is skipped, uncounted.
 *   `bytes` adds st_blocks × 512 when st_nlink is 1; in a dry run, multi-link inodes go to `tally` as
 *   flat [ino, nlink, blocks] triples instead.
 * Other errors are listed in `failures` as flat [name, errno name] pairs; an error that means the disk
 * is read-only or failing (EROFS, EIO, …) ends the call at once. A readdir error is thrown. `done` is
 * true once the directory is exhausted (or after a disk-stopping error).
 */
static napi_value drain(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3], result, subdirs, failures, tally, v;
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  int32_t dirfd;
  bool dry_run, rewind;
  if (argc < 3 || !get_int(env, argv[0], &dirfd) || !get_bool(env, argv[1], &dry_run) ||
      !get_bool(env, argv[2], &rewind))
    return NULL;
  if (rewind && lseek(dirfd, 0, SEEK_SET) < 0) return throw_errno(env, errno, "scandir");
  uint64_t aligned[DENTS_BUFFER / sizeof(uint64_t)];
  char *buffer = (char *)aligned;
  long n;
  do n = syscall(SYS_getdents64, dirfd, buffer, DENTS_BUFFER);
  while (n < 0 && errno == EINTR);
  if (n < 0) return throw_errno(env, errno, "scandir");

  CHECK(napi_create_array(env, &subdirs));
  CHECK(napi_create_array(env, &failures));
  CHECK(napi_create_array(env, &tally));
  uint32_t n_subdirs = 0, n_failures = 0, n_tally = 0;
  double files = 0, bytes = 0;
  bool done = n == 0;
  for (long off = 0; off < n;) {
    struct linux_dirent64 *d = (struct linux_dirent64 *)(buffer + off);
    off += d->d_reclen;
    const char *name = d->d_name;
    if (name[0] == '.' && (name[1] == 0 || (name[1] == '.' && name[2] == 0))) continue;
    size_t length = strlen(name);
    if (d->d_type == DT_DIR) {
      CHECK(napi_create_string_latin1(env, name, length, &v));
      CHECK(napi_set_element(env, subdirs, n_subdirs++, v));
      continue;
    }
    struct stat st;
    int e = 0;
    if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
      e = errno;
    } else if (S_ISDIR(st.st_mode)) {
      // untyped, or replaced by a directory meanwhile: visited later (opening it checks st_dev)
      CHECK(napi_create_string_latin1(env, name, length, &v));
      CHECK(napi_set_element(env, subdirs, n_subdirs++, v));
      continue;
    } else if (dry_run) {
      if (st.st_nlink > 1) {
        double row[3] = {(double)st.st_ino, (double)st.st_nlink, (double)st.st_blocks};
        for (int i = 0; i < 3; i++) {
          CHECK(napi_create_double(env, row[i], &v));
          CHECK(napi_set_element(env, tally, n_tally++, v));
        }
      } else {
        bytes += (double)st.st_blocks * 512;
      }
      files += 1;
      continue;
    } else if (unlinkat(dirfd, name, 0) != 0) {
      e = errno;
    } else {
      if (st.st_nlink == 1) bytes += (double)st.st_blocks * 512;
      files += 1;
      continue;
    }
    if (e == ENOENT) continue;
    CHECK(napi_create_string_latin1(env, name, length, &v));
    CHECK(napi_set_element(env, failures, n_failures++, v));
    CHECK(napi_create_string_utf8(env, errno_name(e), NAPI_AUTO_LENGTH, &v));
    CHECK(napi_set_element(env, failures, n_failures++, v));
    if (stops_branch(e)) {
      done = true;
      break;
    }
  }
  CHECK(napi_create_array_with_length(env, 6, &result));
  CHECK(napi_get_boolean(env, done, &v));
  CHECK(napi_set_element(env, result, 0, v));
  CHECK(napi_create_double(env, files, &v));
  CHECK(napi_set_element(env, result, 1, v));
  CHECK(napi_create_double(env, bytes, &v));
  CHECK(napi_set_element(env, result, 2, v));
  CHECK(napi_set_element(env, result, 3, subdirs));
  CHECK(napi_set_element(env, result, 4, failures));
  CHECK(napi_set_element(env, result, 5, tally));
  return result;
}

/*
 * writeFileDurable / renameDurable: the whole "write a file durably, then put it in place" sequence
 * as ONE thread-pool job, so the event loop neither blocks on a journal commit (create, fchmod and
 * rename wait for one under concurrent fsyncs) nor pays a continuation per step.
 */
typedef struct {
  napi_async_work work;
  napi_deferred deferred;
  napi_ref data_ref; /* keeps the Buffer alive while the job runs */
  const char *data;
  size_t length;
  char *file;   /* the file to create (O_EXCL), or the rename source */
  char *target; /* rename `file` over this path and fsync its directory; NULL: no rename */
  int write;    /* create and write `file` first */
  int err;
  const char *syscall;
} durable_job;

/** Frees a job and what it holds (the Buffer reference, the queued work, the paths). */
static void free_job(napi_env env, durable_job *j) {
  if (j->data_ref != NULL) napi_delete_reference(env, j->data_ref);
  if (j->work != NULL) napi_delete_async_work(env, j->work);
  free(j->file);
  free(j->target);
  free(j);
}

static int fsync_parent(const char *path) {
  const char *slash = strrchr(path, '/');
  char dir[4096];
  size_t len = slash == NULL ? 1 : (slash == path ? 1 : (size_t)(slash - path));
  if (len >= sizeof dir) return ENAMETOOLONG;
  if (slash == NULL) dir[0] = '.';
  else memcpy(dir, path, len);
  if (slash == path) dir[0] = '/';
  dir[len] = '\0';
  int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return errno;
  int e = fsync(fd) == 0 ? 0 : errno;
  close(fd);
  return e;
}

static void durable_execute(napi_env env, void *p) {
  durable_job *j = p;
  if (j->write) {
    int fd = open(j->file, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) {
      j->err = errno, j->syscall = "open";
      return;
    }
    size_t done = 0;
    while (done < j->length) {
      ssize_t n = write(fd, j->data + done, j->length - done);
      if (n < 0) {
        if (errno == EINTR) continue;
        j->err = errno, j->syscall = "write";
        close(fd);
        return;
      }
      done += (size_t)n;
    }
    /* the umask must not narrow the mode */
    if (fchmod(fd, 0644) != 0) j->err = errno, j->syscall = "fchmod";
    else if (fsync(fd) != 0) j->err = errno, j->syscall = "fsync";
    if (close(fd) != 0 && j->err == 0) j->err = errno, j->syscall = "close";
    if (j->err != 0) return;
  }
  if (j->target != NULL) {
    if (rename(j->file, j->target) != 0) {
      j->err = errno, j->syscall = "rename";
      return;
    }
    int e = fsync_parent(j->target);
    if (e != 0) j->err = e, j->syscall = "fsync";
  }
}

static void durable_complete(napi_env env, napi_status status, void *p) {
  durable_job *j = p;
  napi_value result;
  if (status != napi_ok && j->err == 0) j->err = EINTR, j->syscall = "cancelled";
  if (j->err == 0) {
    napi_get_undefined(env, &result);
    napi_resolve_deferred(env, j->deferred, result);
  } else {
    char message[160];
    snprintf(message, sizeof message, "%s: %s, %s", errno_name(j->err), strerror(j->err), j->syscall);
    napi_value msg, code, sys, no;
    napi_create_string_utf8(env, message, NAPI_AUTO_LENGTH, &msg);
    napi_create_error(env, NULL, msg, &result);
    napi_create_string_utf8(env, errno_name(j->err), NAPI_AUTO_LENGTH, &code);
    napi_create_string_utf8(env, j->syscall, NAPI_AUTO_LENGTH, &sys);
    napi_create_int32(env, -j->err, &no);
    napi_set_named_property(env, result, "code", code);
    napi_set_named_property(env, result, "syscall", sys);
    napi_set_named_property(env, result, "errno", no);
    napi_reject_deferred(env, j->deferred, result);
  }
  free_job(env, j);
}

/** A path argument as a heap C string (NUL refused); NULL after throwing. */
static char *get_path(napi_env env, napi_value value) {
  size_t length;
  if (napi_get_value_string_utf8(env, value, NULL, 0, &length) != napi_ok) {
    napi_throw_type_error(env, NULL, "fs-at: a path must be a string");
    return NULL;
  }
  if (length == 0 || length >= 4096) {
    napi_throw_type_error(env, NULL, "fs-at: a path must hold 1 to 4095 bytes");
    return NULL;
  }
  char *out = malloc(length + 1);
  if (out == NULL) {
    napi_throw_error(env, NULL, "fs-at: out of memory");
    return NULL;
  }
  napi_get_value_string_utf8(env, value, out, length + 1, &length);
  if (strlen(out) != length) {
    free(out);
    napi_throw_type_error(env, NULL, "fs-at: a path must not contain NUL");
    return NULL;
  }
  return out;
}

static napi_value start_durable(napi_env env, durable_job *j) {
  napi_value promise, name;
  if (napi_create_promise(env, &j->deferred, &promise) != napi_ok ||
      napi_create_string_utf8(env, "fs-at:durable", NAPI_AUTO_LENGTH, &name) != napi_ok ||
      napi_create_async_work(env, NULL, name, durable_execute, durable_complete, j, &j->work) != napi_ok ||
      napi_queue_async_work(env, j->work) != napi_ok) {
    napi_throw_error(env, NULL, "fs-at: could not queue the job");
    return NULL;
  }
  return promise;
}

/** writeFileDurable(file, data: Buffer, renameTo: string | null): Promise<void>. */
static napi_value write_file_durable(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  napi_valuetype type;
  bool is_buffer = false;
  void *data = NULL;
  size_t length = 0;
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc < 3 || napi_is_buffer(env, argv[1], &is_buffer) != napi_ok || !is_buffer ||
      napi_get_buffer_info(env, argv[1], &data, &length) != napi_ok) {
    napi_throw_type_error(env, NULL, "fs-at: writeFileDurable(file, data: Buffer, renameTo)");
    return NULL;
  }
  durable_job *j = calloc(1, sizeof *j);
  if (j == NULL) return throw_errno(env, ENOMEM, "writeFileDurable");
  j->write = 1;
  j->data = data;
  j->length = length;
  if ((j->file = get_path(env, argv[0])) == NULL) goto fail;
  if (napi_typeof(env, argv[2], &type) != napi_ok) goto fail;
  if (type != napi_null && type != napi_undefined && (j->target = get_path(env, argv[2])) == NULL) goto fail;
  if (napi_create_reference(env, argv[1], 1, &j->data_ref) != napi_ok) goto fail;
  napi_value promise = start_durable(env, j);
  if (promise != NULL) return promise;
fail:
  free_job(env, j);
  return NULL;
}

/** renameDurable(from, to): Promise<void> — rename, then fsync the directory of `to`. */
static napi_value rename_durable(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc < 2) {
    napi_throw_type_error(env, NULL, "fs-at: renameDurable(from, to)");
    return NULL;
  }
  durable_job *j = calloc(1, sizeof *j);
  if (j == NULL) return throw_errno(env, ENOMEM, "renameDurable");
  if ((j->file = get_path(env, argv[0])) != NULL && (j->target = get_path(env, argv[1])) != NULL) {
    napi_value promise = start_durable(env, j);
    if (promise != NULL) return promise;
  }
  free_job(env, j);
  return NULL;
}

NAPI_MODULE_INIT() {
  napi_property_descriptor props[] = {
      {"openDirAt", NULL, open_dir_at, NULL, NULL, NULL, napi_enumerable, NULL},
      {"openParent", NULL, open_parent, NULL, NULL, NULL, napi_enumerable, NULL},
      {"close", NULL, close_fd, NULL, NULL, NULL, napi_enumerable, NULL},
      {"unlinkAt", NULL, unlink_at, NULL, NULL, NULL, napi_enumerable, NULL},
      {"lstatAt", NULL, lstat_at, NULL, NULL, NULL, napi_enumerable, NULL},
      {"drain", NULL, drain, NULL, NULL, NULL, napi_enumerable, NULL},
      {"writeFileDurable", NULL, write_file_durable, NULL, NULL, NULL, napi_enumerable, NULL},
      {"renameDurable", NULL, rename_durable, NULL, NULL, NULL, napi_enumerable, NULL},
  };
  if (napi_define_properties(env, exports, sizeof props / sizeof props[0], props) != napi_ok) return NULL;
  return exports;
}
