// SPDX-License-Identifier: Apache-2.0
// Seals and unseals a short secret with a TPM 2.0 through tpm2-tss's ESAPI (docs/design/unlock-slots.md §3).
// Each call opens the TCTI, creates the primary key, does its work, flushes every transient object and
// session it made, and closes the TCTI again: nothing stays loaded, and the next client can connect.
#ifndef PUFF_TPM_H
#define PUFF_TPM_H

#include <stddef.h>
#include <stdint.h>

/// The outcome of a call; `tpm_rc` carries the TSS2 response code where one applies.
typedef enum {
    PUFF_TPM_OK = 0,
    /// The TCTI could not be opened or the TPM did not answer (no device, no socket, no permission).
    PUFF_TPM_UNAVAILABLE = 1,
    /// The blob is not a marshalled TPM2B_PUBLIC followed by a TPM2B_PRIVATE and nothing else.
    PUFF_TPM_MALFORMED_BLOB = 2,
    /// The TPM refused to load the blob: sealed by another TPM (or state), or altered (TPM_RC_INTEGRITY).
    PUFF_TPM_OTHER_TPM = 3,
    /// The PCR policy failed: the PCRs no longer hold the values they had at seal time.
    PUFF_TPM_PCR_CHANGED = 4,
    /// A caller-side size was wrong (secret too long, output buffer too small).
    PUFF_TPM_BAD_ARGUMENT = 5,
    /// Any other TPM or TSS error; see `tpm_rc`.
    PUFF_TPM_FAILED = 6,
} puff_tpm_status;

/// The largest blob `puff_tpm_seal` writes (TPM2B_PUBLIC + TPM2B_PRIVATE, marshalled).
#define PUFF_TPM_BLOB_MAX 1024
/// The largest secret a keyedhash object holds (TPM2B_SENSITIVE_DATA).
#define PUFF_TPM_SECRET_MAX 128

/// Seals `secret` under a fresh owner-hierarchy primary key; binds it to the current values of the sha256
/// PCRs in `pcr_mask` (bit i = PCR i, 0 = unbound). Writes the blob to `blob` and its length to `blob_len`.
puff_tpm_status puff_tpm_seal(const char *tcti, const uint8_t *secret, size_t secret_len, uint32_t pcr_mask,
    uint8_t *blob, size_t blob_capacity, size_t *blob_len, uint32_t *tpm_rc);

/// Unseals a blob made by `puff_tpm_seal` with the same `pcr_mask`; writes the secret to `secret`.
puff_tpm_status puff_tpm_unseal(const char *tcti, const uint8_t *blob, size_t blob_len, uint32_t pcr_mask,
    uint8_t *secret, size_t secret_capacity, size_t *secret_len, uint32_t *tpm_rc);

#endif
