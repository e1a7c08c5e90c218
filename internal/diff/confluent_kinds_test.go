package diff

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/jstk-dev/jstk/internal/corpora"
)

// confluentKinds maps each of Confluent Schema Registry's JSON Schema change kinds
// (../shared/corpora/compat/confluent-difference-types.json) to the jstk kinds that report
// it; an empty list is explained in confluentWhy.
var confluentKinds = map[string][]string{
	"ID_CHANGED":                                    {},
	"DESCRIPTION_CHANGED":                           {"description-changed"},
	"TITLE_CHANGED":                                 {"title-changed"},
	"DEFAULT_CHANGED":                               {"default-changed"},
	"SCHEMA_ADDED":                                  {"items-added", "additional-properties-added", "property-names-added", "not-added", "dependent-schema-added"},
	"SCHEMA_REMOVED":                                {"items-removed", "additional-properties-removed", "property-names-removed", "not-removed", "dependent-schema-removed"},
	"TYPE_EXTENDED":                                 {"type-extended"},
	"TYPE_NARROWED":                                 {"type-narrowed"},
	"TYPE_CHANGED":                                  {"type-changed"},
	"MAX_LENGTH_ADDED":                              {"max-length-added"},
	"MAX_LENGTH_REMOVED":                            {"max-length-removed"},
	"MAX_LENGTH_INCREASED":                          {"max-length-increased"},
	"MAX_LENGTH_DECREASED":                          {"max-length-decreased"},
	"MIN_LENGTH_ADDED":                              {"min-length-added"},
	"MIN_LENGTH_REMOVED":                            {"min-length-removed"},
	"MIN_LENGTH_INCREASED":                          {"min-length-increased"},
	"MIN_LENGTH_DECREASED":                          {"min-length-decreased"},
	"PATTERN_ADDED":                                 {"pattern-added"},
	"PATTERN_REMOVED":                               {"pattern-removed"},
	"PATTERN_CHANGED":                               {"pattern-changed"},
	"MAXIMUM_ADDED":                                 {"maximum-added"},
	"MAXIMUM_REMOVED":                               {"maximum-removed"},
	"MAXIMUM_INCREASED":                             {"maximum-increased"},
	"MAXIMUM_DECREASED":                             {"maximum-decreased"},
	"MINIMUM_ADDED":                                 {"minimum-added"},
	"MINIMUM_REMOVED":                               {"minimum-removed"},
	"MINIMUM_INCREASED":                             {"minimum-increased"},
	"MINIMUM_DECREASED":                             {"minimum-decreased"},
	"EXCLUSIVE_MAXIMUM_ADDED":                       {"maximum-added"},
	"EXCLUSIVE_MAXIMUM_REMOVED":                     {"maximum-removed"},
	"EXCLUSIVE_MAXIMUM_INCREASED":                   {"maximum-increased"},
	"EXCLUSIVE_MAXIMUM_DECREASED":                   {"maximum-decreased"},
	"EXCLUSIVE_MINIMUM_ADDED":                       {"minimum-added"},
	"EXCLUSIVE_MINIMUM_REMOVED":                     {"minimum-removed"},
	"EXCLUSIVE_MINIMUM_INCREASED":                   {"minimum-increased"},
	"EXCLUSIVE_MINIMUM_DECREASED":                   {"minimum-decreased"},
	"MULTIPLE_OF_ADDED":                             {"multiple-of-added"},
	"MULTIPLE_OF_REMOVED":                           {"multiple-of-removed"},
	"MULTIPLE_OF_EXPANDED":                          {"multiple-of-changed"},
	"MULTIPLE_OF_REDUCED":                           {"multiple-of-changed"},
	"MULTIPLE_OF_CHANGED":                           {"multiple-of-changed"},
	"REQUIRED_ATTRIBUTE_ADDED":                      {"required-added"},
	"REQUIRED_ATTRIBUTE_WITH_DEFAULT_ADDED":         {"required-added"},
	"REQUIRED_ATTRIBUTE_REMOVED":                    {"required-removed"},
	"MAX_PROPERTIES_ADDED":                          {"max-properties-added"},
	"MAX_PROPERTIES_REMOVED":                        {"max-properties-removed"},
	"MAX_PROPERTIES_INCREASED":                      {"max-properties-increased"},
	"MAX_PROPERTIES_DECREASED":                      {"max-properties-decreased"},
	"MIN_PROPERTIES_ADDED":                          {"min-properties-added"},
	"MIN_PROPERTIES_REMOVED":                        {"min-properties-removed"},
	"MIN_PROPERTIES_INCREASED":                      {"min-properties-increased"},
	"MIN_PROPERTIES_DECREASED":                      {"min-properties-decreased"},
	"ADDITIONAL_PROPERTIES_ADDED":                   {"additional-properties-added"},
	"ADDITIONAL_PROPERTIES_REMOVED":                 {"additional-properties-removed"},
	"ADDITIONAL_PROPERTIES_EXTENDED":                {"additional-properties-changed"},
	"ADDITIONAL_PROPERTIES_NARROWED":                {"additional-properties-changed"},
	"DEPENDENCY_ARRAY_ADDED":                        {"dependent-required-added"},
	"DEPENDENCY_ARRAY_REMOVED":                      {"dependent-required-removed"},
	"DEPENDENCY_ARRAY_EXTENDED":                     {"dependent-required-extended"},
	"DEPENDENCY_ARRAY_NARROWED":                     {"dependent-required-narrowed"},
	"DEPENDENCY_ARRAY_CHANGED":                      {"dependent-required-changed"},
	"DEPENDENCY_SCHEMA_ADDED":                       {"dependent-schema-added"},
	"DEPENDENCY_SCHEMA_REMOVED":                     {"dependent-schema-removed"},
	"PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL":          {"property-added"},
	"REQUIRED_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL": {"property-added", "required-added"},
	"REQUIRED_PROPERTY_WITH_DEFAULT_ADDED_TO_OPEN_CONTENT_MODEL":   {"property-added", "required-added"},
	"OPTIONAL_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL":                {"property-added"},
	"PROPERTY_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL":       {"property-added"},
	"REQUIRED_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL":              {"property-added", "required-added"},
	"REQUIRED_PROPERTY_WITH_DEFAULT_ADDED_TO_UNOPEN_CONTENT_MODEL": {"property-added", "required-added"},
	"OPTIONAL_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL":              {"property-added"},
	"PROPERTY_REMOVED_FROM_OPEN_CONTENT_MODEL":                     {"property-removed"},
	"PROPERTY_WITH_FALSE_REMOVED_FROM_CLOSED_CONTENT_MODEL":        {"property-removed"},
	"PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL":                   {"property-removed"},
	"PROPERTY_REMOVED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL":  {"property-removed"},
	"PROPERTY_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL": {"property-removed"},
	"PROPERTY_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL":    {"property-added"},
	"PROPERTY_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL":   {"property-added"},
	"RESERVED_PROPERTY_REMOVED":                                    {},
	"RESERVED_PROPERTY_CONFLICTS_WITH_PROPERTY":                    {},
	"UNEVALUATED_PROPERTIES_ADDED":                                 {"unevaluated-properties-added"},
	"UNEVALUATED_PROPERTIES_REMOVED":                               {"unevaluated-properties-removed"},
	"UNEVALUATED_PROPERTIES_EXTENDED":                              {"unevaluated-properties-changed"},
	"UNEVALUATED_PROPERTIES_NARROWED":                              {"unevaluated-properties-changed"},
	"MAX_ITEMS_ADDED":                                              {"max-items-added"},
	"MAX_ITEMS_REMOVED":                                            {"max-items-removed"},
	"MAX_ITEMS_INCREASED":                                          {"max-items-increased"},
	"MAX_ITEMS_DECREASED":                                          {"max-items-decreased"},
	"MIN_ITEMS_ADDED":                                              {"min-items-added"},
	"MIN_ITEMS_REMOVED":                                            {"min-items-removed"},
	"MIN_ITEMS_INCREASED":                                          {"min-items-increased"},
	"MIN_ITEMS_DECREASED":                                          {"min-items-decreased"},
	"MAX_CONTAINS_ADDED":                                           {"max-contains-added"},
	"MAX_CONTAINS_REMOVED":                                         {"max-contains-removed"},
	"MAX_CONTAINS_INCREASED":                                       {"max-contains-increased"},
	"MAX_CONTAINS_DECREASED":                                       {"max-contains-decreased"},
	"MIN_CONTAINS_ADDED":                                           {"min-contains-increased"},
	"MIN_CONTAINS_REMOVED":                                         {"min-contains-decreased"},
	"MIN_CONTAINS_INCREASED":                                       {"min-contains-increased"},
	"MIN_CONTAINS_DECREASED":                                       {"min-contains-decreased"},
	"UNIQUE_ITEMS_ADDED":                                           {"unique-items-added"},
	"UNIQUE_ITEMS_REMOVED":                                         {"unique-items-removed"},
	"ADDITIONAL_ITEMS_ADDED":                                       {"items-added"},
	"ADDITIONAL_ITEMS_REMOVED":                                     {"items-removed"},
	"ADDITIONAL_ITEMS_EXTENDED":                                    {"items-changed"},
	"ADDITIONAL_ITEMS_NARROWED":                                    {"items-changed"},
	"UNEVALUATED_ITEMS_ADDED":                                      {"unevaluated-items-added"},
	"UNEVALUATED_ITEMS_REMOVED":                                    {"unevaluated-items-removed"},
	"UNEVALUATED_ITEMS_EXTENDED":                                   {"unevaluated-items-changed"},
	"UNEVALUATED_ITEMS_NARROWED":                                   {"unevaluated-items-changed"},
	"ITEM_ADDED_TO_OPEN_CONTENT_MODEL":                             {"prefix-item-added"},
	"ITEM_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL":           {"prefix-item-added"},
	"ITEM_ADDED_TO_CLOSED_CONTENT_MODEL":                           {"prefix-item-added"},
	"ITEM_REMOVED_FROM_OPEN_CONTENT_MODEL":                         {"prefix-item-removed"},
	"ITEM_WITH_FALSE_REMOVED_FROM_CLOSED_CONTENT_MODEL":            {"prefix-item-removed"},
	"ITEM_REMOVED_FROM_CLOSED_CONTENT_MODEL":                       {"prefix-item-removed"},
	"ITEM_REMOVED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL":      {"prefix-item-removed"},
	"ITEM_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL":     {"prefix-item-removed"},
	"ITEM_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL":        {"prefix-item-added"},
	"ITEM_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL":       {"prefix-item-added"},
	"ENUM_ARRAY_EXTENDED":                                          {"enum-extended", "const-removed"},
	"ENUM_ARRAY_NARROWED":                                          {"enum-narrowed", "const-added"},
	"ENUM_ARRAY_CHANGED":                                           {"enum-changed", "const-changed"},
	"COMBINED_TYPE_EXTENDED":                                       {"any-of-added", "one-of-removed"},
	"COMBINED_TYPE_CHANGED":                                        {"any-of-removed", "one-of-added"},
	"PRODUCT_TYPE_EXTENDED":                                        {},
	"PRODUCT_TYPE_NARROWED":                                        {},
	"SUM_TYPE_EXTENDED":                                            {"any-of-branch-added", "one-of-branch-added"},
	"SUM_TYPE_NARROWED":                                            {"any-of-branch-removed", "one-of-branch-removed"},
	"COMBINED_TYPE_SUBSCHEMAS_CHANGED":                             {},
	"NOT_TYPE_EXTENDED":                                            {},
	"NOT_TYPE_NARROWED":                                            {},
}

var confluentWhy = map[string]string{
	"ID_CHANGED":                                "$id only names the schema; references are resolved before comparing, so a changed $id has no effect of its own",
	"RESERVED_PROPERTY_REMOVED":                 "Confluent-specific confluent:reserved annotation, no effect on validity",
	"RESERVED_PROPERTY_CONFLICTS_WITH_PROPERTY": "Confluent-specific confluent:reserved annotation, no effect on validity",
	"PRODUCT_TYPE_EXTENDED":                     "allOf is merged into its parent: the keywords its branches add are reported as they are (type-narrowed, required-added, ...)",
	"PRODUCT_TYPE_NARROWED":                     "allOf is merged into its parent: the keywords its branches lose are reported as they are",
	"COMBINED_TYPE_SUBSCHEMAS_CHANGED":          "branches are aligned and compared: the changes inside them are reported at their location",
	"NOT_TYPE_EXTENDED":                         "the changes inside not are reported at their location with the effect inverted",
	"NOT_TYPE_NARROWED":                         "the changes inside not are reported at their location with the effect inverted",
}

// TestConfluentKindsCovered checks that every change kind Confluent Schema Registry knows
// is covered by jstk's vocabulary: mapped to kinds of the rule table, or explained.
func TestConfluentKindsCovered(t *testing.T) {
	dir := corpora.Dir(t, "compat")
	data, err := os.ReadFile(filepath.Join(dir, "confluent-difference-types.json"))
	if err != nil {
		t.Fatal(err)
	}
	var types struct {
		All []string `json:"all"`
	}
	if err := json.Unmarshal(data, &types); err != nil {
		t.Fatal(err)
	}
	known := map[string]bool{}
	for _, k := range Kinds() {
		known[k] = true
	}
	if len(types.All) != len(confluentKinds) {
		t.Errorf("%d Confluent kinds, %d mapped", len(types.All), len(confluentKinds))
	}
	for _, k := range types.All {
		ours, ok := confluentKinds[k]
		switch {
		case !ok:
			t.Errorf("Confluent kind %s is not mapped", k)
		case len(ours) == 0 && confluentWhy[k] == "":
			t.Errorf("Confluent kind %s maps to nothing and has no explanation", k)
		}
		for _, o := range ours {
			if !known[o] {
				t.Errorf("Confluent kind %s maps to %s, which is not in the rule table", k, o)
			}
		}
	}
}
