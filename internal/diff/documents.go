package diff

import "encoding/json"

// PerLocation is Result.Direction for a comparison of two OpenAPI or AsyncAPI documents
// where each location is judged in the direction that breaks clients there.
const PerLocation = "per-location"

// DocumentReport is what a comparison of two OpenAPI or AsyncAPI documents adds to its
// Result: the kind of documents and one entry per schema location compared.
type DocumentReport struct {
	// Kind is "openapi" or "asyncapi".
	Kind string `json:"kind"`
	// OldVersion and NewVersion are the versions the documents declare ("3.0.3", "2.6.0").
	OldVersion string `json:"oldVersion"`
	// NewVersion is the new document's version.
	NewVersion string `json:"newVersion"`
	// Compared counts the schema locations both documents hold, all compared.
	Compared int `json:"compared"`
	// Unchanged counts those proved equivalent with no change reported (not listed).
	Unchanged int `json:"unchanged"`
	// Locations lists the other compared locations: those with a change or not proved
	// equivalent.
	Locations []LocationResult `json:"locations"`
	// Omitted counts the locations left out of Locations by a limit.
	Omitted int `json:"omitted,omitempty"`
	// Notes says what the documents hold that was not followed or not compared.
	Notes []string `json:"notes,omitempty"`
}

// LocationResult is the verdict at one schema location of two documents.
type LocationResult struct {
	// Location names it: "POST /pets request body application/json".
	Location string `json:"location"`
	// Role is "request", "response" or "component".
	Role string `json:"role"`
	// Direction is the direction that breaks clients here ("backward" for a request,
	// "forward" for a response, the directions of its users for a component); "" for a
	// component nothing uses, which is compared but not checked.
	Direction string `json:"direction"`
	// Via names the old response a new status code was compared with, when the old
	// document did not list that code.
	Via string `json:"via,omitempty"`
	// OldPointer and NewPointer are the schemas in the two documents.
	OldPointer string `json:"oldPointer"`
	// NewPointer is the schema in the new document.
	NewPointer string `json:"newPointer"`
	// Old and New locate them.
	Old Location `json:"old"`
	// New locates NewPointer.
	New Location `json:"new"`
	// Backward and Forward are the verdicts of the two schemas.
	Backward Verdict `json:"backward"`
	// Forward is the forward verdict.
	Forward Verdict `json:"forward"`
	// Verdict answers Direction (compatible when Direction is "").
	Verdict Verdict `json:"verdict"`
	// Checked is set for the locations the overall verdict and --check judge: the requests
	// and responses clients meet. A component is judged through the locations that use it.
	Checked bool `json:"checked"`
	// Changes counts the changes reported at this location.
	Changes int `json:"changes"`
	// Example is an instance that proves the verdict wrong in Direction: valid under the
	// side ExampleValidUnder names, invalid under the other.
	Example json.RawMessage `json:"example,omitempty"`
	// ExampleValidUnder is "old" or "new".
	ExampleValidUnder string `json:"exampleValidUnder,omitempty"`
	// NotCompared is set when the document's budget ran out before this location was
	// compared: its verdicts are unknown.
	NotCompared bool `json:"notCompared,omitempty"`
}
