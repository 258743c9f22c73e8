// SPDX-License-Identifier: Apache-2.0
/*
 * fido2_check: the platform side of a FIDO2 hmac-secret unlock, through the real libfido2 with its
 * I/O hooks (fido_dev_set_io_functions) over a SOCK_SEQPACKET socket to fido2_authenticator.py;
 * each message is one 64-byte CTAPHID report. SecurityKeyAuthenticatorTests compiles and runs it.
 *
 *     fido2_check SOCKET enrol CREDFILE [--pin]           writes the credential id to CREDFILE
 *     fido2_check SOCKET unlock CREDFILE SALTHEX [--pin]  prints the 32-byte hmac-secret output in hex
 *     fido2_check SOCKET retries                          prints the PIN retries left
 *
 * --pin reads the PIN from the first line of standard input (never from the command line). A
 * refusal prints `error NAME` (fido_strerr) on stderr and exits 2.
 */
#include <fido.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static int odd_writes = 0;

static void *sock_open(const char *path) {
    int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    if (fd < 0 || strlen(path) >= sizeof a.sun_path) goto fail;
    strcpy(a.sun_path, path);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) < 0) goto fail;
    int *h = malloc(sizeof *h);
    if (h == NULL) goto fail;
    *h = fd;
    return h;
fail:
    if (fd >= 0) close(fd);
    return NULL;
}

static void sock_close(void *h) {
    close(*(int *)h);
    free(h);
}

// libfido2 asks for one report of 64 bytes, waiting at most ms milliseconds (-1: forever).
static int sock_read(void *h, unsigned char *buf, size_t len, int ms) {
    struct pollfd p = {.fd = *(int *)h, .events = POLLIN};
    if (len < 64 || poll(&p, 1, ms) != 1) return -1;
    ssize_t n = recv(*(int *)h, buf, 64, 0);
    return n == 64 ? (int)n : -1;
}

// libfido2 writes 65 bytes, the HID report id (0) first: the socket carries bytes 1...64.
static int sock_write(void *h, const unsigned char *buf, size_t len) {
    if (len != 65 || buf[0] != 0) {
        odd_writes++;
        return -1;
    }
    return send(*(int *)h, buf + 1, 64, MSG_NOSIGNAL) == 64 ? (int)len : -1;
}

static int fail(const char *what, int r) {
    fprintf(stderr, "%s: error %s\n", what, fido_strerr(r));
    return 2;
}

static char *read_pin(char *buf, size_t size) {
    if (fgets(buf, (int)size, stdin) == NULL) return NULL;
    buf[strcspn(buf, "\n")] = 0;
    return buf;
}

static int has_flag(int argc, char **argv, int from, const char *flag) {
    for (int i = from; i < argc; i++)
        if (!strcmp(argv[i], flag)) return 1;
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: fido2_check SOCKET enrol|unlock|retries ...\n");
        return 64;
    }
    fido_init(0);
    fido_dev_io_t io = {sock_open, sock_close, sock_read, sock_write};
    fido_dev_t *dev = fido_dev_new();
    int r;
    if ((r = fido_dev_set_io_functions(dev, &io)) != FIDO_OK) return fail("io", r);
    if ((r = fido_dev_open(dev, argv[1])) != FIDO_OK) return fail("open", r);
    unsigned char cdh[32] = {0};
    char pinbuf[256];
    const char *pin = NULL;
    int status = 0;
    if (!strcmp(argv[2], "enrol") && argc >= 4) {
        if (has_flag(argc, argv, 4, "--pin") && (pin = read_pin(pinbuf, sizeof pinbuf)) == NULL) return 64;
        fido_cred_t *cred = fido_cred_new();
        unsigned char user[16] = {1};
        fido_cred_set_type(cred, COSE_ES256);
        fido_cred_set_clientdata_hash(cred, cdh, sizeof cdh);
        fido_cred_set_rp(cred, "io.puff.vault", "Puff");
        fido_cred_set_user(cred, user, sizeof user, "puff", NULL, NULL);
        fido_cred_set_extensions(cred, FIDO_EXT_HMAC_SECRET);
        fido_cred_set_rk(cred, FIDO_OPT_FALSE);
        if ((r = fido_dev_make_cred(dev, cred, pin)) != FIDO_OK) {
            status = fail("make_cred", r);
        } else {
            FILE *f = fopen(argv[3], "wb");
            if (f == NULL || fwrite(fido_cred_id_ptr(cred), 1, fido_cred_id_len(cred), f) != fido_cred_id_len(cred))
                status = 1;
            if (f != NULL && fclose(f) != 0) status = 1;
            if (!(fido_cred_flags(cred) & 0x80)) {  // ED: the hmac-secret extension came back
                fprintf(stderr, "make_cred: no extension data\n");
                status = 1;
            }
        }
        fido_cred_free(&cred);
    } else if (!strcmp(argv[2], "unlock") && argc >= 5 && strlen(argv[4]) == 64) {
        if (has_flag(argc, argv, 5, "--pin") && (pin = read_pin(pinbuf, sizeof pinbuf)) == NULL) return 64;
        unsigned char id[256], salt[32];
        FILE *f = fopen(argv[3], "rb");
        if (f == NULL) return 1;
        size_t n = fread(id, 1, sizeof id, f);
        fclose(f);
        for (int i = 0; i < 32; i++)
            if (sscanf(argv[4] + 2 * i, "%2hhx", &salt[i]) != 1) return 64;
        fido_assert_t *a = fido_assert_new();
        fido_assert_set_clientdata_hash(a, cdh, sizeof cdh);
        fido_assert_set_rp(a, "io.puff.vault");
        fido_assert_allow_cred(a, id, n);
        fido_assert_set_extensions(a, FIDO_EXT_HMAC_SECRET);
        fido_assert_set_hmac_salt(a, salt, sizeof salt);
        fido_assert_set_up(a, FIDO_OPT_TRUE);
        if ((r = fido_dev_get_assert(dev, a, pin)) != FIDO_OK) {
            status = fail("get_assert", r);
        } else if (fido_assert_hmac_secret_len(a, 0) != 32) {
            fprintf(stderr, "get_assert: hmac-secret output of %zu bytes\n", fido_assert_hmac_secret_len(a, 0));
            status = 1;
        } else {
            const unsigned char *s = fido_assert_hmac_secret_ptr(a, 0);
            for (size_t i = 0; i < 32; i++) printf("%02x", s[i]);
            printf("\n");
        }
        fido_assert_free(&a);
    } else if (!strcmp(argv[2], "retries")) {
        int retries = -1;
        if ((r = fido_dev_get_retry_count(dev, &retries)) != FIDO_OK) status = fail("retries", r);
        else printf("%d\n", retries);
    } else {
        fprintf(stderr, "usage: fido2_check SOCKET enrol|unlock|retries ...\n");
        status = 64;
    }
    explicit_bzero(pinbuf, sizeof pinbuf);
    if (odd_writes) {
        fprintf(stderr, "writes other than 65 bytes with report id 0: %d\n", odd_writes);
        status = status ? status : 1;
    }
    fido_dev_close(dev);
    fido_dev_free(&dev);
    return status;
}
