// SPDX-License-Identifier: Apache-2.0
// toml++ behind CPuffTOML.h. Header-only (no link to libtomlplusplus3) and without exceptions: a
// parse reports its error as a value.
#define TOML_HEADER_ONLY 1
#define TOML_EXCEPTIONS 0
#include <toml++/toml.h>

#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <string_view>

#include "CPuffTOML.h"

struct puff_toml_document {
    toml::table table;
};

namespace {

const toml::node &node_of(const puff_toml_node *node) { return *reinterpret_cast<const toml::node *>(node); }

const puff_toml_node *handle(const toml::node &node) { return reinterpret_cast<const puff_toml_node *>(&node); }

char *copy(std::string_view text) {
    char *result = static_cast<char *>(std::malloc(text.size() + 1));
    if (result == nullptr) return nullptr;
    std::memcpy(result, text.data(), text.size());
    result[text.size()] = '\0';
    return result;
}

/// `value` as toml++ writes it in `v = ...`, without the key and the line end.
template <typename T>
char *literal(T &&value) {
    toml::table table;
    table.insert("v", std::forward<T>(value));
    std::ostringstream stream;
    stream << toml::toml_formatter(table, toml::format_flags::none);
    std::string line = stream.str();
    std::string_view text = line;
    if (text.substr(0, 4) == "v = ") text.remove_prefix(4);
    while (!text.empty() && text.back() == '\n') text.remove_suffix(1);
    return copy(text);
}

}  // namespace

extern "C" {

puff_toml_document *puff_toml_parse(const char *text, size_t length, puff_toml_error *error) {
    toml::parse_result result = toml::parse(length == 0 ? std::string_view() : std::string_view(text, length));
    if (!result) {
        const toml::parse_error &failure = result.error();
        error->description = copy(failure.description());
        error->line = failure.source().begin.line;
        error->column = failure.source().begin.column;
        return nullptr;
    }
    return new puff_toml_document{std::move(result.table())};
}

void puff_toml_free(puff_toml_document *document) { delete document; }

const puff_toml_node *puff_toml_root(const puff_toml_document *document) { return handle(document->table); }

puff_toml_type puff_toml_type_of(const puff_toml_node *node) {
    switch (node_of(node).type()) {
    case toml::node_type::table: return PUFF_TOML_TABLE;
    case toml::node_type::array: return PUFF_TOML_ARRAY;
    case toml::node_type::string: return PUFF_TOML_STRING;
    case toml::node_type::integer: return PUFF_TOML_INTEGER;
    case toml::node_type::floating_point: return PUFF_TOML_FLOAT;
    case toml::node_type::boolean: return PUFF_TOML_BOOLEAN;
    case toml::node_type::date: return PUFF_TOML_DATE;
    case toml::node_type::time: return PUFF_TOML_TIME;
    default: return PUFF_TOML_DATE_TIME;
    }
}

void puff_toml_each(const puff_toml_node *node, puff_toml_visitor visit, void *context) {
    const toml::node &value = node_of(node);
    if (const toml::table *table = value.as_table()) {
        for (auto &&[key, entry] : *table) visit(context, key.data(), key.length(), handle(entry));
    } else if (const toml::array *array = value.as_array()) {
        for (const toml::node &entry : *array) visit(context, nullptr, 0, handle(entry));
    }
}

bool puff_toml_integer(const puff_toml_node *node, int64_t *value) {
    const toml::value<int64_t> *integer = node_of(node).as_integer();
    if (integer == nullptr) return false;
    *value = integer->get();
    return true;
}

bool puff_toml_float(const puff_toml_node *node, double *value) {
    const toml::value<double> *number = node_of(node).as_floating_point();
    if (number == nullptr) return false;
    *value = number->get();
    return true;
}

bool puff_toml_boolean(const puff_toml_node *node, bool *value) {
    const toml::value<bool> *flag = node_of(node).as_boolean();
    if (flag == nullptr) return false;
    *value = flag->get();
    return true;
}

bool puff_toml_string(const puff_toml_node *node, const char **text, size_t *length) {
    const toml::value<std::string> *string = node_of(node).as_string();
    if (string == nullptr) return false;
    *text = string->get().data();
    *length = string->get().size();
    return true;
}

char *puff_toml_format_string(const char *text, size_t length) { return literal(length == 0 ? std::string() : std::string(text, length)); }

char *puff_toml_format_integer(int64_t value) { return literal(value); }

char *puff_toml_format_boolean(bool value) { return literal(value); }

char *puff_toml_format_strings(const char *const *texts, const size_t *lengths, size_t count) {
    toml::array array;
    for (size_t index = 0; index < count; index++) array.push_back(std::string(texts[index], lengths[index]));
    return literal(std::move(array));
}

void puff_toml_free_text(char *text) { std::free(text); }
}
