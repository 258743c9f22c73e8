/* SPDX-License-Identifier: Apache-2.0
 *
 * pam_switch_user: what sudo does with a PAM stack, through the real libpam (pam_flow.py compiles
 * and runs it as root).
 *
 *     pam_switch_user SERVICE USER [SESSION_USER]
 *
 * pam_start(SERVICE, USER), pam_authenticate with the password read from standard input (one
 * line, given to every echo-off prompt), then, when SESSION_USER is given,
 * pam_set_item(PAM_USER, SESSION_USER) as sudo does before it opens the target's session, then
 * pam_open_session and pam_end. It is its own children's subreaper and waits for every one of
 * them before it exits, so a daemon a module started (and detached) has run to its end by then.
 * Prints "authenticate N", "open_session N" and "children N"; never the password.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <security/pam_appl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>

static char password[1100];

static int conversation(int count, const struct pam_message **messages, struct pam_response **replies, void *data) {
    (void)data;
    struct pam_response *answers = calloc((size_t)count, sizeof *answers);
    if (answers == NULL) return PAM_BUF_ERR;
    for (int i = 0; i < count; i++) {
        if (messages[i]->msg_style == PAM_PROMPT_ECHO_OFF || messages[i]->msg_style == PAM_PROMPT_ECHO_ON)
            answers[i].resp = strdup(password);
    }
    *replies = answers;
    return PAM_SUCCESS;
}

int main(int argc, char **argv) {
    if (argc < 3 || argc > 4) {
        fprintf(stderr, "usage: pam_switch_user SERVICE USER [SESSION_USER]\n");
        return 2;
    }
    if (fgets(password, sizeof password, stdin) == NULL) password[0] = 0;
    password[strcspn(password, "\n")] = 0;
    if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) return 2;
    struct pam_conv conv = {conversation, NULL};
    pam_handle_t *pamh = NULL;
    if (pam_start(argv[1], argv[2], &conv, &pamh) != PAM_SUCCESS) return 2;
    int result = pam_authenticate(pamh, 0);
    printf("authenticate %d\n", result);
    if (result == PAM_SUCCESS && argc == 4) result = pam_set_item(pamh, PAM_USER, argv[3]);
    if (result == PAM_SUCCESS) {
        result = pam_open_session(pamh, 0);
        printf("open_session %d\n", result);
    }
    pam_end(pamh, result);
    explicit_bzero(password, sizeof password);
    int children = 0;
    for (;;) {
        if (wait(NULL) > 0)
            children++;
        else if (errno != EINTR)
            break;
    }
    printf("children %d\n", children);
    return result == PAM_SUCCESS ? 0 : 1;
}
