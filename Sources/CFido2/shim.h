#include <fcntl.h>
#include <fido.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

/* libfido2's I/O hooks over a SOCK_SEQPACKET Unix socket, one 64-byte CTAPHID report a message
 * (a `unix:PATH` device: the test authenticator, docs/design/unlock-slots.md §3 fido2). In C
 * rather than as Swift @convention(c) closures: no Swift state to carry, and the handle is an fd. */

static void *puff_fido_unix_open(const char *path) {
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof address.sun_path) return NULL;
    strcpy(address.sun_path, path);
    /* Non-blocking connect: a Unix socket whose listener never accepts (a full backlog) fails at
     * once with EAGAIN instead of holding the call, which no cancellation reaches before the open. */
    int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) return NULL;
    int *handle = malloc(sizeof *handle);
    if (handle == NULL || connect(fd, (struct sockaddr *)&address, sizeof address) < 0 ||
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) < 0) {
        free(handle);
        close(fd);
        return NULL;
    }
    *handle = fd;
    return handle;
}

static void puff_fido_unix_close(void *handle) {
    close(*(int *)handle);
    free(handle);
}

/* One report, waiting at most `ms` milliseconds (-1: until it comes). */
static int puff_fido_unix_read(void *handle, unsigned char *buffer, size_t length, int ms) {
    struct pollfd waiting = {.fd = *(int *)handle, .events = POLLIN};
    if (length < 64 || poll(&waiting, 1, ms) != 1) return -1;
    ssize_t got = recv(*(int *)handle, buffer, 64, 0);
    return got == 64 ? 64 : -1;
}

/* libfido2 writes 65 bytes, the HID report id (0) first: the socket carries bytes 1...64. */
static int puff_fido_unix_write(void *handle, const unsigned char *buffer, size_t length) {
    if (length != 65 || buffer[0] != 0) return -1;
    return send(*(int *)handle, buffer + 1, 64, MSG_NOSIGNAL) == 64 ? 65 : -1;
}

/* Points `device` at a `unix:PATH` device; fido_dev_open then takes the bare PATH. */
static inline int puff_fido_use_unix_socket(fido_dev_t *device) {
    fido_dev_io_t io = {puff_fido_unix_open, puff_fido_unix_close, puff_fido_unix_read, puff_fido_unix_write};
    return fido_dev_set_io_functions(device, &io);
}
