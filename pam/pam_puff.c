/* SPDX-License-Identifier: Apache-2.0
 *
 * pam_puff: hands the login password to the user's puffd, which opens (on first login: creates)
 * the `login` collection with it, and keeps it in step when the password changes. docs/pam.md
 * says where the lines go and what each stage does.
 *
 *   auth      keeps PAM_AUTHTOK with pam_set_data, with the uid of PAM_USER then (wiped and freed
 *             by its cleanup)
 *   session   when PAM_USER still resolves to that uid (sudo switches it), sends it over
 *             $XDG_RUNTIME_DIR/puff/login.socket (/run/user/UID), where the user manager's
 *             puff-login.socket starts puffd.service; with auto_start and no user manager,
 *             starts puffd as the user, password on a socket pair, when nothing listens there
 *   password  sends the old and the new password so puffd rewraps `login`'s key in its login
 *             slot alone (no re-key: docs/pam.md, "The login slot")
 *
 * Options: debug, auto_start, daemon=PATH (default /usr/libexec/puff/puffd).
 * The module never fails a login or a password change: every stage returns PAM_IGNORE or
 * PAM_SUCCESS, and a failure is one log line. No password is ever logged.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <security/pam_ext.h>
#include <security/pam_modules.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#define DATA_KEY "pam_puff_authtok"
#define MAX_PASSWORD 1024
/* A first login derives a key with Argon2id and writes the vault: give it time. */
#define REPLY_TIMEOUT_MS 30000
#define SEND_TIMEOUT_MS 5000

enum reply { REPLY_UNLOCKED = 0, REPLY_CREATED = 1, REPLY_WRONG = 2, REPLY_REFUSED = 3, REPLY_FAILED = 4 };
/* What sending came to, besides a reply byte. */
enum { SEND_NO_DAEMON = -1, SEND_UNSAFE = -2, SEND_BROKEN = -3 };

struct options {
    int debug;
    int auto_start;
    const char *daemon;
};

static void parse_options(pam_handle_t *pamh, int argc, const char **argv, struct options *options) {
    options->debug = 0;
    options->auto_start = 0;
    options->daemon = "/usr/libexec/puff/puffd";
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "debug") == 0)
            options->debug = 1;
        else if (strcmp(argv[i], "auto_start") == 0)
            options->auto_start = 1;
        else if (strncmp(argv[i], "daemon=", 7) == 0 && argv[i][7] == '/')
            options->daemon = argv[i] + 7;
        else
            pam_syslog(pamh, LOG_WARNING, "unknown option: %s", argv[i]);
    }
}

/* The password typed at auth and whose it is: sudo authenticates the invoking user, then sets
 * PAM_USER to the target before opening the session, so the session stage must not take the
 * password for whoever PAM_USER names by then. */
struct stash {
    uid_t uid;
    size_t size; /* of the whole allocation, for the wipe */
    char password[];
};

/* pam_set_data cleanup: the stashed password is wiped before its memory goes back. */
static void wipe_password(pam_handle_t *pamh, void *data, int error_status) {
    (void)pamh;
    (void)error_status;
    if (data == NULL) return;
    struct stash *stash = data;
    size_t size = stash->size;
    explicit_bzero(stash, size);
    munlock(stash, size);
    free(stash);
}

static int user_entry(pam_handle_t *pamh, struct passwd *entry, char *buffer, size_t size) {
    const char *user = NULL;
    struct passwd *found = NULL;
    if (pam_get_user(pamh, &user, NULL) != PAM_SUCCESS || user == NULL) return -1;
    if (getpwnam_r(user, entry, buffer, size, &found) != 0 || found == NULL) return -1;
    return 0;
}

static long long now_ms(void) {
    struct timespec time;
    clock_gettime(CLOCK_MONOTONIC, &time);
    return (long long)time.tv_sec * 1000 + time.tv_nsec / 1000000;
}

/* Writes all of `bytes` before `deadline`. */
static int write_all(int fd, const void *bytes, size_t length, long long deadline) {
    const char *next = bytes;
    while (length > 0) {
        long long left = deadline - now_ms();
        struct pollfd poller = {.fd = fd, .events = POLLOUT};
        if (left <= 0 || poll(&poller, 1, (int)left) <= 0) return -1;
        ssize_t written = send(fd, next, length, MSG_NOSIGNAL);
        if (written < 0 && (errno == EINTR || errno == EAGAIN)) continue;
        if (written <= 0) return -1;
        next += written;
        length -= (size_t)written;
    }
    return 0;
}

static int write_field(int fd, const char *text, long long deadline) {
    size_t length = text ? strlen(text) : 0;
    unsigned char prefix[4] = {length & 0xff, (length >> 8) & 0xff, (length >> 16) & 0xff, (length >> 24) & 0xff};
    if (write_all(fd, prefix, sizeof prefix, deadline) != 0) return -1;
    return length ? write_all(fd, text, length, deadline) : 0;
}

/* The socket's folder and the socket must be the user's own, neither a symlink; and the process
 * listening must run as the user. Returns a connected socket or a SEND_ code. */
static int connect_to_puffd(pam_handle_t *pamh, const struct passwd *user, const struct options *options) {
    char folder[128], path[160];
    snprintf(folder, sizeof folder, "/run/user/%u/puff", (unsigned)user->pw_uid);
    snprintf(path, sizeof path, "%s/login.socket", folder);
    struct stat info;
    if (lstat(folder, &info) != 0 || lstat(path, &info) != 0) {
        if (options->debug) pam_syslog(pamh, LOG_DEBUG, "no login socket at %s", path);
        return SEND_NO_DAEMON;
    }
    if (lstat(folder, &info) != 0 || !S_ISDIR(info.st_mode) || info.st_uid != user->pw_uid ||
        (info.st_mode & 077) != 0) {
        pam_syslog(pamh, LOG_WARNING, "refusing %s: not a 0700 folder of uid %u", folder, (unsigned)user->pw_uid);
        return SEND_UNSAFE;
    }
    if (lstat(path, &info) != 0 || !S_ISSOCK(info.st_mode) || info.st_uid != user->pw_uid) {
        pam_syslog(pamh, LOG_WARNING, "refusing %s: not a socket of uid %u", path, (unsigned)user->pw_uid);
        return SEND_UNSAFE;
    }
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return SEND_BROKEN;
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    memcpy(address.sun_path, path, strlen(path) + 1);
    /* Connected as root (login, sudo, passwd run the stack with euid 0): SO_PEERCRED then shows
     * puffd uid 0, which is how it knows the request is the PAM module's and may create, re-key
     * or ask to re-sync `login`; a process of the user may only try to unlock it. */
    if (connect(fd, (struct sockaddr *)&address, sizeof address) != 0) {
        close(fd);
        return SEND_NO_DAEMON;
    }
    struct ucred peer;
    socklen_t length = sizeof peer;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &length) != 0 || peer.uid != user->pw_uid) {
        pam_syslog(pamh, LOG_WARNING, "refusing %s: the listening process is not uid %u", path,
                   (unsigned)user->pw_uid);
        close(fd);
        return SEND_UNSAFE;
    }
    return fd;
}

/* Sends one request ('L': password; 'C': old and new) and returns the reply byte or a SEND_ code. */
static int send_request(pam_handle_t *pamh, const struct passwd *user, const struct options *options, char op,
                        const char *first, const char *second) {
    int fd = connect_to_puffd(pamh, user, options);
    if (fd < 0) return fd;
    long long deadline = now_ms() + SEND_TIMEOUT_MS;
    char header[5] = {'P', 'U', 'F', '1', op};
    int result = SEND_BROKEN;
    if (write_all(fd, header, sizeof header, deadline) == 0 && write_field(fd, first, deadline) == 0 &&
        write_field(fd, second, deadline) == 0) {
        struct pollfd poller = {.fd = fd, .events = POLLIN};
        unsigned char reply;
        if (poll(&poller, 1, REPLY_TIMEOUT_MS) > 0 && recv(fd, &reply, 1, 0) == 1) result = reply;
    }
    close(fd);
    return result;
}

/* Starts puffd as the user, detached, with the password on descriptor 3 (`--unlock-fd 3`).
 * Privileges are dropped in the child before anything else runs. The password travels over a
 * socket pair rather than a pipe so that send(MSG_NOSIGNAL) spares the login process a SIGPIPE
 * when puffd dies before reading it. */
static int start_puffd(pam_handle_t *pamh, const struct passwd *user, const struct options *options,
                       const char *password) {
    int channel[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, channel) != 0) return -1;
    pid_t child = fork();
    if (child < 0) {
        close(channel[0]);
        close(channel[1]);
        return -1;
    }
    if (child == 0) {
        if (setgid(user->pw_gid) != 0 || initgroups(user->pw_name, user->pw_gid) != 0 ||
            setuid(user->pw_uid) != 0 || getuid() != user->pw_uid || geteuid() != user->pw_uid)
            _exit(126);
        /* Detached from the login process: its own session, reaped by init. */
        if (setsid() < 0 || fork() != 0) _exit(0);
        /* dup2 onto itself would leave close-on-exec set: clear it then. */
        if (channel[0] == 3 ? fcntl(3, F_SETFD, 0) != 0 : dup2(channel[0], 3) != 3) _exit(126);
        int null = open("/dev/null", O_RDWR);
        if (null >= 0) {
            dup2(null, 0);
            dup2(null, 1);
            dup2(null, 2);
        }
        closefrom(4);
        if (chdir(user->pw_dir) != 0 && chdir("/") != 0) _exit(126);
        char home[512], runtime[64], bus[96], name[256], logname[256];
        snprintf(home, sizeof home, "HOME=%s", user->pw_dir);
        snprintf(runtime, sizeof runtime, "XDG_RUNTIME_DIR=/run/user/%u", (unsigned)user->pw_uid);
        snprintf(bus, sizeof bus, "DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/%u/bus", (unsigned)user->pw_uid);
        snprintf(name, sizeof name, "USER=%s", user->pw_name);
        snprintf(logname, sizeof logname, "LOGNAME=%s", user->pw_name);
        char *environment[] = {home, runtime, bus, name, logname, "PATH=/usr/local/bin:/usr/bin:/bin", NULL};
        char *arguments[] = {"puffd", "--unlock-fd", "3", NULL};
        execve(options->daemon, arguments, environment);
        _exit(127);
    }
    close(channel[0]);
    int status = 0;
    int sent = write_all(channel[1], password, strlen(password), now_ms() + SEND_TIMEOUT_MS);
    close(channel[1]);
    waitpid(child, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || sent != 0) {
        pam_syslog(pamh, LOG_WARNING, "could not start %s as %s", options->daemon, user->pw_name);
        return -1;
    }
    if (options->debug) pam_syslog(pamh, LOG_DEBUG, "started %s for %s", options->daemon, user->pw_name);
    return 0;
}

/* Whether the user's systemd manager runs (its private socket exists): then puffd runs only as
 * puffd.service, which puff-login.socket starts on the module's connection, never forked here
 * outside the unit's sandbox (docs/pam.md). */
static int user_manager_runs(const struct passwd *user) {
    char path[96];
    struct stat info;
    snprintf(path, sizeof path, "/run/user/%u/systemd/private", (unsigned)user->pw_uid);
    return lstat(path, &info) == 0 && S_ISSOCK(info.st_mode) && info.st_uid == user->pw_uid;
}

PAM_EXTERN int pam_sm_authenticate(pam_handle_t *pamh, int flags, int argc, const char **argv) {
    (void)flags;
    struct options options;
    parse_options(pamh, argc, argv, &options);
    const char *password = NULL;
    if (pam_get_authtok(pamh, PAM_AUTHTOK, &password, NULL) != PAM_SUCCESS || password == NULL) return PAM_IGNORE;
    size_t length = strlen(password);
    if (length == 0) {
        pam_syslog(pamh, LOG_INFO, "empty password: the login collection is left alone");
        return PAM_IGNORE;
    }
    if (length > MAX_PASSWORD) return PAM_IGNORE;
    struct passwd user;
    char buffer[4096];
    if (user_entry(pamh, &user, buffer, sizeof buffer) != 0) return PAM_IGNORE;
    size_t size = sizeof(struct stash) + length + 1;
    struct stash *stash = malloc(size);
    if (stash == NULL) return PAM_IGNORE;
    mlock(stash, size);
    stash->uid = user.pw_uid;
    stash->size = size;
    memcpy(stash->password, password, length + 1);
    if (pam_set_data(pamh, DATA_KEY, stash, wipe_password) != PAM_SUCCESS) {
        wipe_password(pamh, stash, 0);
        return PAM_IGNORE;
    }
    return PAM_IGNORE;
}

PAM_EXTERN int pam_sm_setcred(pam_handle_t *pamh, int flags, int argc, const char **argv) {
    (void)pamh;
    (void)flags;
    (void)argc;
    (void)argv;
    return PAM_SUCCESS;
}

PAM_EXTERN int pam_sm_open_session(pam_handle_t *pamh, int flags, int argc, const char **argv) {
    (void)flags;
    struct options options;
    parse_options(pamh, argc, argv, &options);
    const void *data = NULL;
    if (pam_get_data(pamh, DATA_KEY, &data) != PAM_SUCCESS || data == NULL) {
        if (options.debug) pam_syslog(pamh, LOG_DEBUG, "no password kept from auth");
        return PAM_SUCCESS;
    }
    const struct stash *stash = data;
    struct passwd user;
    char buffer[4096];
    if (user_entry(pamh, &user, buffer, sizeof buffer) != 0 || user.pw_uid != stash->uid) {
        /* Not the user who typed it (sudo -i -u OTHER): nothing is sent, nothing started. */
        pam_syslog(pamh, LOG_NOTICE, "the password given at auth is uid %u's, the session is %s's: not sent",
                   (unsigned)stash->uid, user_entry(pamh, &user, buffer, sizeof buffer) == 0 ? user.pw_name : "?");
        pam_set_data(pamh, DATA_KEY, NULL, NULL);
        return PAM_SUCCESS;
    }
    int reply = send_request(pamh, &user, &options, 'L', stash->password, NULL);
    if (reply == SEND_NO_DAEMON && options.auto_start && user_manager_runs(&user)) {
        pam_syslog(pamh, LOG_NOTICE,
                   "%s's systemd manager runs but nothing listens on the login socket (is puff-login.socket "
                   "masked?): puffd is not started outside its unit",
                   user.pw_name);
    } else if (reply == SEND_NO_DAEMON && options.auto_start) {
        start_puffd(pamh, &user, &options, stash->password);
    } else if (reply == REPLY_WRONG) {
        pam_syslog(pamh, LOG_NOTICE, "the login password does not open %s's login collection", user.pw_name);
    } else if (reply < 0 || reply >= REPLY_REFUSED) {
        pam_syslog(pamh, LOG_NOTICE, "puffd did not take the login password of %s (%d)", user.pw_name, reply);
    } else if (options.debug) {
        pam_syslog(pamh, LOG_DEBUG, "login collection %s", reply == REPLY_CREATED ? "created" : "unlocked");
    }
    /* The password is no longer needed. */
    pam_set_data(pamh, DATA_KEY, NULL, NULL);
    return PAM_SUCCESS;
}

PAM_EXTERN int pam_sm_close_session(pam_handle_t *pamh, int flags, int argc, const char **argv) {
    (void)pamh;
    (void)flags;
    (void)argc;
    (void)argv;
    return PAM_SUCCESS;
}

PAM_EXTERN int pam_sm_chauthtok(pam_handle_t *pamh, int flags, int argc, const char **argv) {
    struct options options;
    parse_options(pamh, argc, argv, &options);
    const char *old = NULL, *new = NULL;
    if (flags & PAM_PRELIM_CHECK) {
        /* Root changing another user's password is asked no old one. */
        if (getuid() != 0) pam_get_authtok(pamh, PAM_OLDAUTHTOK, &old, NULL);
        return PAM_IGNORE;
    }
    if (!(flags & PAM_UPDATE_AUTHTOK)) return PAM_IGNORE;
    if (pam_get_item(pamh, PAM_OLDAUTHTOK, (const void **)&old) != PAM_SUCCESS || old == NULL || old[0] == 0) {
        pam_syslog(pamh, LOG_NOTICE, "no old password: the login collection keeps its passcode until the next login");
        return PAM_IGNORE;
    }
    if (pam_get_authtok(pamh, PAM_AUTHTOK, &new, NULL) != PAM_SUCCESS || new == NULL || new[0] == 0)
        return PAM_IGNORE;
    if (strlen(old) > MAX_PASSWORD || strlen(new) > MAX_PASSWORD) return PAM_IGNORE;
    struct passwd user;
    char buffer[4096];
    if (user_entry(pamh, &user, buffer, sizeof buffer) != 0) return PAM_IGNORE;
    int reply = send_request(pamh, &user, &options, 'C', old, new);
    if (reply != REPLY_UNLOCKED && reply != REPLY_CREATED)
        pam_syslog(pamh, LOG_NOTICE, "puffd did not change %s's login collection (%d)", user.pw_name, reply);
    return PAM_IGNORE;
}
