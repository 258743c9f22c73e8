// SPDX-License-Identifier: Apache-2.0
// A small C interface to toml++ (Debian's libtomlplusplus-dev, used header-only), for puffd.toml:
// parse a document, walk its tables and arrays, read scalars, and write the literals
// `puffd --print-config` prints. No TOML parsing or quoting is done outside toml++.
#ifndef CPUFFTOML_H
#define CPUFFTOML_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// A parsed document; owns every node reachable from its root.
typedef struct puff_toml_document puff_toml_document;
/// One value inside a document, valid while the document lives.
typedef struct puff_toml_node puff_toml_node;

typedef enum {
    PUFF_TOML_TABLE,
    PUFF_TOML_ARRAY,
    PUFF_TOML_STRING,
    PUFF_TOML_INTEGER,
    PUFF_TOML_FLOAT,
    PUFF_TOML_BOOLEAN,
    PUFF_TOML_DATE,
    PUFF_TOML_TIME,
    PUFF_TOML_DATE_TIME,
} puff_toml_type;

/// Why a document did not parse: toml++'s description (malloc'd, free with puff_toml_free_text)
/// and where, 1-based.
typedef struct {
    char *description;
    uint32_t line;
    uint32_t column;
} puff_toml_error;

/// Parses `length` bytes of `text`; on failure returns NULL and fills `error`.
puff_toml_document *puff_toml_parse(const char *text, size_t length, puff_toml_error *error);
void puff_toml_free(puff_toml_document *document);
/// The document's root table.
const puff_toml_node *puff_toml_root(const puff_toml_document *document);

puff_toml_type puff_toml_type_of(const puff_toml_node *node);
/// Calls `visit` for each entry of a table (keys in toml++'s order: sorted) or array (key NULL).
typedef void (*puff_toml_visitor)(void *context, const char *key, size_t key_length, const puff_toml_node *value);
void puff_toml_each(const puff_toml_node *node, puff_toml_visitor visit, void *context);
/// A scalar's value; false when the node is of another type.
bool puff_toml_integer(const puff_toml_node *node, int64_t *value);
bool puff_toml_float(const puff_toml_node *node, double *value);
bool puff_toml_boolean(const puff_toml_node *node, bool *value);
/// A string's UTF-8 bytes, valid while the document lives.
bool puff_toml_string(const puff_toml_node *node, const char **text, size_t *length);

/// Values as toml++ writes them after `key = ` (no format flags: basic quoted strings, decimal
/// integers, one-line arrays). Each result is malloc'd: free it with puff_toml_free_text.
char *puff_toml_format_string(const char *text, size_t length);
char *puff_toml_format_integer(int64_t value);
char *puff_toml_format_boolean(bool value);
char *puff_toml_format_strings(const char *const *texts, const size_t *lengths, size_t count);
void puff_toml_free_text(char *text);

#ifdef __cplusplus
}
#endif

#endif
