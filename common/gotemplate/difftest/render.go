// Command render renders template cases with Go's own text/template and the
// function map Siren uses (sprig.TxtFuncMap plus Siren's additions in
// core/template/mapper.go), the reference side of the differential test.
//
// stdin: JSON [{"name","left","right","text","data"}...]; stdout: JSON
// [{"ok","out","err"}...] in the same order. Data is decoded as encoding/json
// decodes into interface{}, except that integers become int (as Sluice's
// engine reads them), and executed as Siren does: Execute(w, &data).
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"text/template"

	"github.com/Masterminds/sprig/v3"
	"golang.org/x/text/cases"
	"golang.org/x/text/language"
	"gopkg.in/yaml.v2"
)

type testCase struct {
	Name  string          `json:"name"`
	Left  string          `json:"left"`
	Right string          `json:"right"`
	Text  string          `json:"text"`
	Data  json.RawMessage `json:"data"`
	// YAML: the output is then read as Siren reads a rendered message
	// (yaml.v2 Unmarshal into map[string]any, core/notification/message.go)
	// and returned as JSON.
	YAML bool `json:"yaml"`
}

type result struct {
	OK  bool   `json:"ok"`
	Out string `json:"out"`
	Err string `json:"err"`
}

// The function map of Siren's core/template/mapper.go, restated.
func funcMap() template.FuncMap {
	f := sprig.TxtFuncMap()
	f["toUpper"] = strings.ToUpper
	f["toLower"] = strings.ToLower
	f["title"] = cases.Title(language.AmericanEnglish).String
	f["join"] = func(sep string, s []string) string { return strings.Join(s, sep) }
	f["match"] = regexp.MatchString
	f["reReplaceAll"] = func(pattern, repl, text string) string {
		return regexp.MustCompile(pattern).ReplaceAllString(text, repl)
	}
	f["stringSlice"] = func(s ...string) []string { return s }
	f["sub"] = func(a, b string) string {
		x, err := strconv.ParseInt(a, 10, 64)
		if err != nil {
			return "unknown"
		}
		y, err := strconv.ParseInt(b, 10, 64)
		if err != nil {
			return "unknown"
		}
		return strconv.FormatInt(x-y, 10)
	}
	return f
}

func convert(v interface{}) interface{} {
	switch t := v.(type) {
	case json.Number:
		if i, err := t.Int64(); err == nil {
			return int(i)
		}
		f, _ := t.Float64()
		return f
	case []interface{}:
		out := make([]interface{}, len(t))
		for i, e := range t {
			out[i] = convert(e)
		}
		return out
	case map[string]interface{}:
		out := make(map[string]interface{}, len(t))
		for k, e := range t {
			out[k] = convert(e)
		}
		return out
	}
	return v
}

func render(c testCase, funcs template.FuncMap) (res result) {
	defer func() {
		if r := recover(); r != nil {
			res = result{OK: false, Err: fmt.Sprintf("panic: %v", r)}
		}
	}()
	dec := json.NewDecoder(bytes.NewReader(c.Data))
	dec.UseNumber()
	var raw interface{}
	if err := dec.Decode(&raw); err != nil {
		return result{Err: "bad data: " + err.Error()}
	}
	data := convert(raw)
	t, err := template.New(c.Name).Funcs(funcs).Delims(c.Left, c.Right).Parse(c.Text)
	if err != nil {
		return result{Err: err.Error()}
	}
	var buf bytes.Buffer
	if err := t.Execute(&buf, &data); err != nil {
		return result{Err: err.Error(), Out: buf.String()}
	}
	if !c.YAML {
		return result{OK: true, Out: buf.String()}
	}
	var details map[string]interface{}
	if err := yaml.Unmarshal(buf.Bytes(), &details); err != nil {
		return result{Err: "yaml: " + err.Error(), Out: buf.String()}
	}
	out, err := json.Marshal(jsonable(details))
	if err != nil {
		return result{Err: "json: " + err.Error()}
	}
	return result{OK: true, Out: string(out)}
}

// jsonable turns yaml.v2's map[interface{}]interface{} into JSON-able maps.
func jsonable(v interface{}) interface{} {
	switch t := v.(type) {
	case map[interface{}]interface{}:
		out := make(map[string]interface{}, len(t))
		for k, e := range t {
			out[fmt.Sprint(k)] = jsonable(e)
		}
		return out
	case map[string]interface{}:
		out := make(map[string]interface{}, len(t))
		for k, e := range t {
			out[k] = jsonable(e)
		}
		return out
	case []interface{}:
		out := make([]interface{}, len(t))
		for i, e := range t {
			out[i] = jsonable(e)
		}
		return out
	}
	return v
}

func main() {
	var cases []testCase
	if err := json.NewDecoder(os.Stdin).Decode(&cases); err != nil {
		fmt.Fprintln(os.Stderr, "render:", err)
		os.Exit(2)
	}
	funcs := funcMap()
	out := make([]result, len(cases))
	for i, c := range cases {
		out[i] = render(c, funcs)
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		fmt.Fprintln(os.Stderr, "render:", err)
		os.Exit(2)
	}
}
