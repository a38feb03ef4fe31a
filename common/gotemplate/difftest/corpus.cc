#include "common/gotemplate/difftest/corpus.h"

#include <random>

namespace sluice::gotemplate::difftest {

std::vector<nlohmann::json> DataSets() {
  return {
      nlohmann::json::parse(R"({
        "s": "hello world", "e": "", "n": 3, "z": 0, "f": 2.5, "big": 1234567.0, "neg": -7, "t": true,
        "fa": false, "nul": null, "l": ["a", "b", "c"], "nums": [3, 1, 2], "el": [],
        "m": {"b": 2, "a": 1, "c": {"d": "deep"}}, "em": {},
        "mixed": [1, "x", null, true, {"k": "v"}, [1, 2], 0.125],
        "html": "<a href=\"x\">&'</a>", "url": "a b&c=d/\u00e9?x",
        "users": [{"name": "ann", "age": 30, "tags": ["x"]}, {"name": "bob", "age": 25, "tags": []}],
        "ml": "line1\nline2\n", "pad": "  spaced\t", "num_s": "42", "csv": "a,b,,c", "up": "MiXeD case",
        "tiny": 0.00001, "huge": 1e21, "fl": [1.5, 2.25], "Status": "firing", "sev": "CRITICAL"
      })"),
      nlohmann::json::parse(R"({
        "s": "", "e": "x", "n": 0, "z": 1, "f": 0.0, "big": -0.5, "neg": 7, "t": false, "fa": true,
        "nul": "not null", "l": [], "nums": [10], "el": ["only"], "m": {}, "em": {"k": null},
        "mixed": [], "html": "plain", "url": "", "users": [], "ml": "", "pad": "", "num_s": "x",
        "csv": "", "up": "", "tiny": 100000.0, "huge": 123456.0, "fl": [], "Status": "resolved", "sev": "WARNING"
      })"),
      nlohmann::json::parse(R"({"m": {"c": null}, "l": [null], "users": [{"name": null}], "n": 1.5})"),
      nlohmann::json::parse("[1, \"two\", [3], {\"four\": 4}]"),
      nlohmann::json::parse("\"just a string\""),
      nlohmann::json::parse("null"),
  };
}

std::vector<std::string> HandTemplates() {
  return {
      // text, actions, comments, trim markers
      "plain text", "", "a{{.s}}b", "{{.}}", "{{.missing}}", "{{.nul}}", "{{.m.c.d}}", "{{.m.missing.x}}",
      "{{.nul.x}}", "{{.s.x}}", "{{.l.x}}", "{{ .n }}", "a {{- .n -}} b", "a {{- .n }} b", "a {{ .n -}} b",
      "x\n  {{- .s }}\n  y", "{{/* comment */}}z", "a {{- /* c */ -}} b", "{{- /* c */}}", "{{/*x*/ .s}}",
      "{{/* unclosed", "{{.s", "{{}}", "{{ }}", "{{-3}}", "{{- 3}}", "{{3 -}}", "{{.s -}}\n\n x",
      "{{ .s }}{{ .e }}{{ .n }}{{ .z }}{{ .f }}{{ .big }}{{ .neg }}{{ .t }}{{ .fa }}",
      "{{.l}} {{.nums}} {{.el}} {{.m}} {{.em}} {{.mixed}} {{.users}} {{.fl}}", "{{.tiny}} {{.huge}}",
      "{{.html}}|{{.url}}|{{.ml}}", "{{$}}", "{{$.s}}", "{{.m.c}}", "{{.users}}",
      // constants
      "{{1}} {{-1}} {{+1}} {{1.5}} {{1e3}} {{0x1F}} {{0o17}} {{0b101}} {{017}} {{1_000}} {{'a'}} {{'\\n'}}",
      "{{true}} {{false}} {{\"str\"}} {{`raw\\n`}} {{\"esc\\t\\x41\\u00e9\"}}", "{{nil}}", "{{1.0}} {{2.50}} {{1e21}}",
      "{{9223372036854775807}}", "{{9223372036854775808}}", "{{0x1p-2}}", "{{1__0}}", "{{08}}", "{{'ab'}}",
      "{{\"unterminated}}", "{{`raw", "{{3 4}}", "{{\"a\" \"b\"}}", "{{.s 1}}", "{{$ 1}}", "{{. 1}}",
      // variables
      "{{$x := .s}}{{$x}}", "{{$x := 1}}{{$x = 2}}{{$x}}", "{{$x = 1}}", "{{$y}}", "{{$x := .m}}{{$x.a}}",
      "{{$x := .users}}{{range $x}}{{.name}}{{end}}", "{{with $x := .s}}{{$x}}{{end}}{{$x}}",
      "{{if $x := .n}}{{$x}}{{else}}no{{$x}}{{end}}", "{{$x := 1}}{{if true}}{{$x = 2}}{{end}}{{$x}}",
      "{{$x := 1}}{{if true}}{{$x := 2}}{{$x}}{{end}}{{$x}}", "{{$ := 1}}", "{{$x, $y := 1}}",
      "{{$x := 1}}{{range .l}}{{$x = .}}{{end}}{{$x}}", "{{$.m.a}}", "{{$x := .nul}}{{$x}}",
      // if / else if / else
      "{{if .t}}T{{end}}", "{{if .fa}}T{{else}}F{{end}}", "{{if .n}}n{{else if .s}}s{{else}}none{{end}}",
      "{{if .e}}e{{else if .z}}z{{else if .l}}l{{end}}", "{{if .missing}}m{{else}}nm{{end}}",
      "{{if .nul}}y{{else}}n{{end}}", "{{if .el}}y{{else}}n{{end}}", "{{if .em}}y{{else}}n{{end}}",
      "{{if .m}}y{{end}}", "{{if .f}}y{{else}}n{{end}}", "{{if .}}root{{end}}", "{{if}}x{{end}}",
      "{{if .t}}x", "{{if .t}}x{{else}}y{{else}}z{{end}}", "{{else}}", "{{end}}", "{{if .t}}{{end}}{{end}}",
      "{{if eq .Status \"firing\"}}F{{else if eq .Status \"resolved\"}}R{{else}}?{{end}}",
      "{{if and .t .n}}both{{end}}", "{{if or .fa .z .e}}any{{else}}none{{end}}", "{{if not .fa}}nf{{end}}",
      // range
      "{{range .l}}[{{.}}]{{end}}", "{{range $i, $v := .l}}{{$i}}:{{$v}} {{end}}",
      "{{range $v := .nums}}{{$v}}{{end}}", "{{range .el}}x{{else}}empty{{end}}",
      "{{range .m}}{{.}};{{end}}", "{{range $k, $v := .m}}{{$k}}={{$v}};{{end}}",
      "{{range .missing}}x{{else}}none{{end}}", "{{range .nul}}x{{else}}none{{end}}", "{{range .s}}x{{end}}",
      "{{range .n}}x{{end}}", "{{range .mixed}}<{{.}}>{{end}}", "{{range .users}}{{.name}}({{.age}}){{end}}",
      "{{range .users}}{{range .tags}}{{.}}{{else}}-{{end}}{{end}}",
      "{{range $i, $u := .users}}{{if $i}}, {{end}}{{$u.name}}{{end}}",
      "{{range .nums}}{{if eq . 1}}{{continue}}{{end}}{{.}}{{end}}",
      "{{range .nums}}{{if eq . 1}}{{break}}{{end}}{{.}}{{end}}", "{{break}}", "{{continue}}",
      "{{range .l}}{{break 1}}{{end}}", "{{range $i, $v, $w := .l}}{{end}}", "{{range $i, 3 := .l}}{{end}}",
      "{{range .l}}{{$}}{{end}}", "{{range .mixed}}{{.k}}{{end}}", "{{range .}}{{.}}{{end}}",
      "{{range $i, $e := .}}{{$i}}{{end}}", "{{range .l}}{{else if .t}}x{{end}}",
      "{{range $x := .l}}{{$x}}{{end}}{{$x}}", "{{range .em}}{{.}}{{else}}E{{end}}",
      // with
      "{{with .m}}{{.a}}{{end}}", "{{with .missing}}x{{else}}none{{end}}", "{{with .s}}{{.}}{{end}}",
      "{{with $v := .n}}{{$v}}{{.}}{{end}}", "{{with .el}}x{{else}}{{.s}}{{end}}", "{{with .nul}}x{{end}}",
      "{{with .users}}{{range .}}{{.name}}{{end}}{{end}}",
      // define / template / block
      "{{define \"a\"}}A{{.}}{{end}}{{template \"a\" .n}}", "{{define \"a\"}}A{{end}}{{template \"a\"}}",
      "{{template \"nope\"}}", "{{define \"a\"}}[{{.}}]{{end}}{{range .l}}{{template \"a\" .}}{{end}}",
      "{{block \"b\" .s}}<{{.}}>{{end}}", "{{define \"b\"}}B{{end}}{{block \"b\" .}}X{{end}}",
      "{{define \"a\"}}1{{end}}{{define \"a\"}}2{{end}}", "{{define \"a\"}}1{{end}}{{define \"a\"}} {{end}}{{template \"a\"}}",
      "{{define \"r\"}}{{if .}}{{len .}}{{template \"r\" (slice . 1)}}{{end}}{{end}}{{template \"r\" .l}}",
      "{{define \"loop\"}}{{template \"loop\" .}}{{end}}{{template \"loop\" .}}", "{{define \"a\"}}{{$x}}{{end}}",
      "{{define \"a\"}}{{$}}{{end}}{{template \"a\" .m}}", "{{define `raw`}}R{{end}}{{template `raw`}}",
      "{{define \"a\" }}x{{end}}", "{{define a}}x{{end}}", "{{template .s}}", "{{if .t}}{{define \"x\"}}{{end}}{{end}}",
      "{{define \"a\"}}x{{else}}y{{end}}",
      // pipelines, parentheses, chains
      "{{.s | printf \"%s!\"}}", "{{.n | printf \"%d-%d\" 1}}", "{{(.m).a}}", "{{(index .users 0).name}}",
      "{{(.m.c).d}}", "{{.l | len}}", "{{len .l | printf \"%03d\"}}", "{{\"x\" | printf \"%s%s\" \"y\"}}",
      "{{. | len}}", "{{.s | .n}}", "{{.s | 3}}", "{{.s | \"x\"}}", "{{.s | $}}", "{{(1)}}", "{{(.s) 1}}",
      "{{(printf \"%d\" 3).x}}", "{{((.m)).a}}", "{{(.)}}", "{{.s|printf \"%q\"|printf \"%s\"}}",
      "{{( .s }}", "{{ .s ) }}", "{{nil.x}}", "{{1.x}}", "{{.s.}}",
      // builtins
      "{{len .s}} {{len .l}} {{len .m}} {{len .el}}", "{{len .n}}", "{{len .missing}}", "{{len .nul}}", "{{len .}}",
      "{{index .l 1}} {{index .m \"a\"}} {{index .m \"zz\"}} {{index .users 1 \"name\"}}", "{{index .l 5}}",
      "{{index .l 3}}", "{{index .l -1}}", "{{index .s 0}}", "{{index .m 1}}", "{{index .n 0}}", "{{index .nul 0}}",
      "{{index .missing 0}}", "{{index . \"s\"}}", "{{index .l}}", "{{index .m \"c\" \"d\"}}", "{{index .l 1.0}}",
      "{{slice .l 1}} {{slice .l 1 2}} {{slice .l 0 0}} {{slice .s 1 3}} {{slice .l}}", "{{slice .l 2 1}}",
      "{{slice .l 0 4}}", "{{slice .s 1 2 3}}", "{{slice .l 0 1 2}}", "{{slice .m 1}}", "{{slice .nul 1}}",
      "{{print}} {{print 1 2}} {{print \"a\" \"b\"}} {{print 1 \"a\" 2}} {{print .nul .missing}} {{print .l .m}}",
      "{{println 1 \"a\"}}{{println}}", "{{print .f .big .tiny}}", "{{print true nil}}",
      "{{printf \"%v|%s|%d|%q|%t|%x|%X|%o|%c|%%\" .l .s .n .s .t .n .n 8 65}}",
      "{{printf \"%5d|%-5d|%05d|%+d|%x|%.2f|%8.3f|%e|%g|%.3s|%10s|%-10s|\" 42 42 42 42 255 3.14159 2.5 1234.5 0.5 \"abcdef\" \"r\" \"l\"}}",
      "{{printf \"%d\" \"str\"}}", "{{printf \"%s\" 3}}", "{{printf \"%d %d\" 1}}", "{{printf \"%d\" 1 2}}",
      "{{printf \"%v %v\" .nul .missing}}", "{{printf \"%v\" .m}}", "{{printf \"%x\" \"hi\"}}", "{{printf .s}}",
      "{{printf 3}}", "{{printf}}", "{{printf \"%q\" \"a\\\"b\\n\"}}", "{{printf \"%t\" 1}}", "{{printf \"%5.1f%%\" 99.44}}",
      "{{html .html}} {{html 1 \"<\"}} {{html .missing}}", "{{js .html}} {{js \"a'b\\\"c=\\n\"}}",
      "{{urlquery .url}} {{urlquery \"a b\" \"c\"}}", "{{.html | html}}", "{{urlquery .l}}",
      "{{eq 1 1}} {{eq 1 2}} {{eq .s \"hello world\"}} {{eq .n 3}} {{eq 1 2 3 1}} {{eq .missing \"x\"}}",
      "{{eq .t true}} {{eq .f 2.5}} {{eq .nul .missing}}", "{{eq 1 \"1\"}}", "{{eq .n 3.0}}", "{{eq .l .l}}",
      "{{eq .m .missing}}", "{{eq 1}}", "{{eq . .}}", "{{ne 1 2}} {{ne \"a\" \"a\"}}", "{{ne .l 1}}",
      "{{lt 1 2}} {{le 2 2}} {{gt 3 2}} {{ge 1 2}} {{lt \"a\" \"b\"}} {{lt 1.5 2.5}} {{gt .n 2}}", "{{lt 1 1.5}}",
      "{{lt .missing 1}}", "{{lt true false}}", "{{lt .l .l}}", "{{le 1 \"a\"}}", "{{gt .n .z}}",
      "{{and 1 0 2}} {{and 1 2}} {{or 0 \"\" 3}} {{or 0 \"\"}} {{and}}", "{{or .missing .s}}", "{{and .s .missing}}",
      "{{not 0}} {{not .l}} {{not .missing}} {{not 1 2}}", "{{and .fa (index .l 10)}}", "{{or .t (index .l 10)}}",
      "{{call .s}}", "{{.s | and 1}}", "{{0 | or 1}}",
      // Siren's functions
      "{{.s | toUpper}} {{toLower .up}} {{.up | upper}} {{lower .up}}", "{{title .s}} {{title .up}} {{title \"o'neil x-y a_b 3rd\"}}",
      "{{toUpper .n}}", "{{toUpper .missing}}", "{{join \",\" (stringSlice \"a\" \"b\")}}", "{{join \",\" .l}}",
      "{{stringSlice}} {{stringSlice \"x\"}}", "{{match \"^h.*d$\" .s}} {{match \"z\" .s}}", "{{match \"(\" .s}}",
      "{{reReplaceAll \"o\" \"0\" .s}} {{reReplaceAll \"(l+)\" \"<$1>\" .s}} {{reReplaceAll \"w(or)\" \"${1}x\" .s}}",
      "{{sub \"10\" \"3\"}} {{sub \"x\" \"1\"}} {{sub \"-5\" \"+5\"}}", "{{sub 10 3}}", "{{.num_s | sub \"50\"}}",
      // sprig
      "{{trim .pad}}|{{trimAll \"h\" \"hahah\"}}|{{trimPrefix \"he\" .s}}|{{trimSuffix \"ld\" .s}}",
      "{{replace \"o\" \"0\" .s}} {{replace \"\" \"-\" \"abc\"}} {{.s | replace \" \" \"_\"}}",
      "{{contains \"wor\" .s}} {{hasPrefix \"he\" .s}} {{hasSuffix \"x\" .s}}", "{{repeat 3 \"ab\"}} {{repeat 0 \"x\"}}",
      "{{repeat -1 \"x\"}}", "{{indent 2 .ml}}|{{nindent 4 \"a\\nb\"}}|{{.s | indent 3}}", "{{indent 2 .n}}",
      "{{indent 2 .missing}}", "{{nospace .s}} {{trunc 5 .s}} {{trunc -3 .s}} {{trunc 50 .s}}",
      "{{substr 0 5 .s}} {{substr 6 100 .s}} {{substr -1 3 .s}}", "{{substr 5 2 .s}}",
      "{{quote .s 1 .nul}} {{squote .s 2}} {{quote}} {{quote \"a\\\"b\"}}", "{{cat \"a\" 1 .nul \"b\"}}",
      "{{toString 3}} {{toString .l}} {{toString .nul}} {{toString .s}}", "{{toStrings .mixed}} {{toStrings .s}}",
      "{{split \",\" .csv}} {{(split \",\" .csv)._1}}", "{{splitList \",\" .csv}} {{splitList \"\" \"ab\"}}",
      "{{sortAlpha .l}} {{sortAlpha .nums}} {{sortAlpha .mixed}}", "{{plural \"one\" \"many\" .n}} {{plural \"one\" \"many\" 1}}",
      "{{b64enc .s}}", "{{.missing | default \"dflt\"}} {{.s | default \"dflt\"}} {{.z | default 5}} {{default 1}}",
      "{{.nul | default \"d\"}} {{.el | default \"d\"}} {{.em | default \"d\"}} {{.fa | default \"d\"}} {{. | default 1}}",
      "{{empty .s}} {{empty .e}} {{empty .z}} {{empty .l}} {{empty .missing}} {{empty .}}",
      "{{coalesce .missing .e .s}} {{coalesce .z .nul}} {{coalesce}}", "{{ternary \"y\" \"n\" .t}} {{ternary 1 2 false}}",
      "{{ternary 1 2 .n}}", "{{toJson .m}} {{toJson .l}} {{toJson .s}} {{toJson .html}} {{toJson .missing}} {{toJson .}}",
      "{{toJson .mixed}} {{toJson .f}} {{toJson .tiny}} {{toJson .huge}} {{toJson .big}}", "{{toPrettyJson .users}}",
      "{{toPrettyJson .em}} {{toPrettyJson .el}}", "{{list 1 \"a\" .nul}} {{list}} {{list .l .m | len}}",
      "{{dict \"a\" 1 \"b\" .s}} {{dict \"x\"}} {{dict}} {{(dict \"k\" \"v\").k}}", "{{toJson (dict \"a\" (list 1 2))}}",
      "{{hasKey .m \"a\"}} {{hasKey .m \"zz\"}} {{get .m \"a\"}} {{get .m \"zz\"}}", "{{hasKey .l \"a\"}}",
      "{{keys .m | sortAlpha}} {{keys .m .em | sortAlpha}}", "{{first .l}} {{last .l}} {{first .el}} {{last .nums}}",
      "{{first .s}}", "{{first .missing}}",
      "{{add 1 2}} {{add .n .f \"4\"}} {{add1 .n}} {{mul 2 3 4}} {{div 7 2}} {{mod 7 3}} {{max 1 5 3}} {{min 4 2 8}}",
      "{{div 1 0}}", "{{add .nul .missing true}}", "{{add \"0x10\" \"010\" \"1.0\" \"x\"}}",
      "{{int .f}} {{int64 \"12\"}} {{float64 \"2.5\"}} {{float64 .n}} {{atoi \"42\"}} {{atoi \"x\"}} {{int .s}}",
      "{{indent (add 1 1) .s}}", "{{indent (int 2) .s}}", "{{repeat (len .l) \"-\"}}",
      "{{regexMatch \"^[a-z]+ \" .s}} {{regexMatch \"(\" .s}} {{regexReplaceAll \"[aeiou]\" .s \"*\"}}",
      "{{regexReplaceAll \"(o)\" .s \"$1$1\"}}", "{{toYaml .m}}", "{{undefinedfn 1}}",
      // realistic message templates
      "username: \"Siren\"\ntext: |\n{{.ml | indent 2}}\ncolor: {{if eq .sev \"CRITICAL\"}}danger{{else}}warning{{end}}\n",
      "{{range $k, $v := .m}}- \"{{ $k }} = {{ $v }}\"\n{{ end }}",
      "{{- define \"t\" -}}\n  {{if ne .Status \"firing\" -}}\n  ok\n  {{- else -}}\n  bad\n  {{- end}}\n{{- end}}\nstatus: {{template \"t\" .}}",
      "{{ $first := true }}{{ range .l }}{{ if $first }}{{ $first = false }}{{ else }}{{ ` | ` }}{{ end }}{{ . }}{{ end }}",
      "{{ `{` | urlquery -}} {{ range .l }}{{ . | urlquery }}{{ `=\"` | urlquery }}{{ end }}",
      "{{ if .s }}{{ .s }}{{ else }}{{ .e }}{{ end }}\n{{- range $index, $element := .m }}\n{{ $index | indent 6 }} = {{ $element }}\"\n{{- end }}",
  };
}

namespace {

class Gen {
 public:
  explicit Gen(uint32_t seed) : rng_(seed) {}

  std::string Template() {
    vars_.clear();
    std::string out;
    int n = 1 + Pick(3);
    for (int i = 0; i < n; ++i) out += Statement(0);
    return out;
  }

 private:
  int Pick(int n) { return static_cast<int>(rng_() % static_cast<uint32_t>(n)); }
  template <typename T>
  const T& One(const std::vector<T>& v) { return v[Pick(static_cast<int>(v.size()))]; }

  std::string Open() { return Pick(4) == 0 ? "{{- " : "{{"; }
  std::string Close() { return Pick(4) == 0 ? " -}}" : "}}"; }

  std::string Operand(int depth) {
    static const std::vector<std::string> kOps = {
        ".s", ".e", ".n", ".z", ".f", ".t", ".fa", ".nul", ".missing", ".l", ".nums", ".el", ".m", ".m.a",
        ".m.c.d", ".em", ".mixed", ".users", ".up", ".num_s", ".csv", ".pad", ".html", "$", ".", "$.s",
        "\"str\"", "\"\"", "\"a b\"", "1", "0", "-2", "2.5", "true", "false", "`raw`", "'x'", ".big", ".ml"};
    int r = Pick(10);
    if (depth < 2 && r == 0) return "(" + Pipeline(depth + 1) + ")";
    if (!vars_.empty() && r == 1) return One(vars_);
    if (depth < 2 && r == 2) return "(index .users " + std::to_string(Pick(2)) + ").name";
    return One(kOps);
  }

  // An operand of a kind: s(tring), i(nt constant), a(ny), l(ist), m(ap);
  // one in eight is any operand at all, to exercise type errors.
  std::string Typed(char kind, int depth) {
    static const std::vector<std::string> kS = {".s", ".e", ".up", ".num_s", ".csv", ".pad", ".html", "\"str\"",
                                                "\"\"", "\"a,b\"", ".ml", "`r`"};
    static const std::vector<std::string> kI = {"0", "1", "2", "3", "-1"};
    static const std::vector<std::string> kL = {".l", ".nums", ".el", ".mixed", ".users", "(list 1 2)", ".fl"};
    static const std::vector<std::string> kM = {".m", ".em", "(dict \"a\" 1)", ".m.c"};
    if (Pick(8) == 0) return Operand(depth);
    switch (kind) {
      case 's': return One(kS);
      case 'i': return One(kI);
      case 'l': return One(kL);
      case 'm': return One(kM);
      default: return Operand(depth);
    }
  }

  std::string Call(int depth) {
    struct F {
      const char* name;
      const char* args;  // kinds of the explicit arguments
    };
    static const std::vector<F> kFuncs = {
        {"len", "l"}, {"len", "s"}, {"index", "li"}, {"index", "ms"}, {"slice", "li"}, {"print", "aa"},
        {"println", "a"}, {"printf", "fa"}, {"html", "s"}, {"js", "s"}, {"urlquery", "a"}, {"eq", "aa"},
        {"eq", "ss"}, {"ne", "ss"}, {"lt", "ii"}, {"le", "ss"}, {"gt", "aa"}, {"ge", "ii"}, {"and", "aa"},
        {"or", "aa"}, {"not", "a"}, {"toUpper", "s"}, {"toLower", "s"}, {"title", "s"}, {"trim", "s"},
        {"default", "aa"}, {"empty", "a"}, {"quote", "a"}, {"toJson", "a"}, {"toString", "a"}, {"indent", "is"},
        {"replace", "sss"}, {"contains", "ss"}, {"hasPrefix", "ss"}, {"add", "ai"}, {"list", "aa"},
        {"coalesce", "aa"}, {"ternary", "aab"}, {"first", "l"}, {"last", "l"}, {"sortAlpha", "l"},
        {"trunc", "is"}, {"join", "sl"}, {"sub", "ss"}, {"int", "a"}, {"splitList", "ss"}, {"cat", "aa"},
        {"max", "ii"}, {"squote", "a"}, {"nindent", "is"}, {"dict", "sa"}, {"hasKey", "ms"},
        {"toPrettyJson", "a"}, {"repeat", "is"}, {"upper", "s"}, {"substr", "iis"},
        {"stringSlice", "ss"}, {"mul", "ii"}, {"toStrings", "l"}, {"nospace", "s"}, {"trimSuffix", "ss"}};
    static const std::vector<std::string> kFormats = {"\"%v\"", "\"%s-%v\"", "\"%d\"", "\"%q\"", "\"[%5v]\""};
    static const std::vector<std::string> kBools = {"true", "false", ".t", ".fa"};
    const F& f = One(kFuncs);
    std::string out = f.name;
    std::string kinds = f.args;
    // Sometimes the last argument comes from the pipeline instead.
    if (piped_ && !kinds.empty()) kinds.pop_back();
    for (char k : kinds) {
      if (k == 'f') {
        out += " " + One(kFormats);
      } else if (k == 'b') {
        out += " " + One(kBools);
      } else {
        out += " " + Typed(k, depth);
      }
    }
    return out;
  }

  std::string Pipeline(int depth) {
    piped_ = false;
    std::string out = Pick(3) == 0 ? Call(depth) : Operand(depth);
    int stages = Pick(4) == 0 ? 2 : Pick(2);
    for (int i = 0; i < stages; ++i) {
      piped_ = true;
      out += " | " + Call(depth);
      piped_ = false;
    }
    return out;
  }

  std::string Statement(int depth) {
    static const std::vector<std::string> kTexts = {"a", " ", "\n", "x: ", " - ", "\t|", "é"};
    int r = Pick(depth < 3 ? 10 : 3);
    switch (r) {
      case 0:
        return One(kTexts);
      case 1:
      case 2:
        return Open() + Pipeline(depth) + Close();
      case 3: {
        std::string v = "$v" + std::to_string(vars_.size());
        std::string s = Open() + v + " := " + Pipeline(depth) + Close();
        vars_.push_back(v);
        return s;
      }
      case 4: {
        size_t mark = vars_.size();
        std::string s = Open() + "if " + Pipeline(depth) + Close() + Statement(depth + 1);
        if (Pick(2) == 0) s += Open() + "else if " + Pipeline(depth) + Close() + Statement(depth + 1);
        if (Pick(2) == 0) s += Open() + "else" + Close() + Statement(depth + 1);
        vars_.resize(mark);
        return s + Open() + "end" + Close();
      }
      case 5:
      case 6: {
        size_t mark = vars_.size();
        std::string over = Pick(5) == 0 ? Pipeline(depth) : Pick(4) == 0 ? Typed('m', depth) : Typed('l', depth);
        std::string decl;
        if (Pick(2) == 0) {
          std::string i = "$i" + std::to_string(mark), e = "$e" + std::to_string(mark);
          decl = i + ", " + e + " := ";
          vars_.push_back(i);
          vars_.push_back(e);
        }
        std::string s = Open() + "range " + decl + over + Close() + Statement(depth + 1);
        if (Pick(4) == 0) s += Open() + (Pick(2) ? "break" : "continue") + Close();
        s += Statement(depth + 1);
        if (Pick(3) == 0) s += Open() + "else" + Close() + Statement(depth + 1);
        vars_.resize(mark);
        return s + Open() + "end" + Close();
      }
      case 7: {
        size_t mark = vars_.size();
        std::string s = Open() + "with " + Pipeline(depth) + Close() + Statement(depth + 1);
        if (Pick(2) == 0) s += Open() + "else" + Close() + Statement(depth + 1);
        vars_.resize(mark);
        return s + Open() + "end" + Close();
      }
      case 8: {
        if (depth > 0) return Open() + Pipeline(depth) + Close();
        std::string name = "\"d" + std::to_string(Pick(3)) + "\"";
        std::vector<std::string> saved = std::move(vars_);
        vars_.clear();
        std::string s = "{{define " + name + "}}" + Statement(depth + 1) + "{{end}}";
        vars_ = std::move(saved);
        return s + Open() + "template " + name + " " + Operand(depth) + Close();
      }
      default:
        return Open() + "/* c */" + Close();
    }
  }

  std::mt19937 rng_;
  std::vector<std::string> vars_;
  bool piped_ = false;
};

}  // namespace

std::vector<std::string> GeneratedTemplates(int n, uint32_t seed) {
  Gen gen(seed);
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i) out.push_back(gen.Template());
  return out;
}

std::vector<nlohmann::json> AlertNotifications() {
  return {
      nlohmann::json::parse(R"({
        "Data": {"status": "firing", "severity": "CRITICAL", "alertname": "cpu_high", "num_alerts_firing": 2,
                 "summary": "CPU usage is 95% on host-1\nand rising", "dashboard": "https://grafana.example/d/1",
                 "playbook": "https://runbooks.example/cpu", "generator_url": "http://prom:9090/graph?g0.expr=up",
                 "triggered_at": "2026-11-26 10:00:00 +0000 UTC", "resource": "host-1", "metric_name": "cpu",
                 "metric_value": "95", "team": "infra"},
        "Labels": {"severity": "CRITICAL", "alertname": "cpu_high", "team": "infra"},
        "UniqueKey": "abc123"})"),
      nlohmann::json::parse(R"({
        "Data": {"status": "resolved", "severity": "WARNING", "alert_name": "disk_full", "num_alerts_firing": 0,
                 "summary": "Disk is fine now", "defaultDashboard": "https://radar.example",
                 "debug": {"b": "two", "a": "one"}},
        "Labels": {"severity": "WARNING", "alertname": "disk_full"},
        "UniqueKey": "k-2"})"),
      nlohmann::json::parse(R"({
        "Data": {"status": "firing", "severity": "INFO", "alertname": "x", "num_alerts_firing": 1,
                 "summary": "quote \" and colon: here"},
        "Labels": {}, "UniqueKey": ""})"),
      nlohmann::json::parse(R"({
        "Data": {"status": "firing", "severity": "WARNING", "alertname": "no_summary", "num_alerts_firing": 3},
        "Labels": {"severity": "WARNING"}, "UniqueKey": "u"})"),
      nlohmann::json::parse(R"({"Data": {"status": "unknown", "summary": ""}, "Labels": {"a": "b"}})"),
  };
}

}  // namespace sluice::gotemplate::difftest
