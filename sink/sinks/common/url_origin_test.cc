#include "sink/sinks/common/url_origin.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace sluice::sink {
namespace {

using ::testing::HasSubstr;

TEST(UrlOriginTest, SchemeHostAndExplicitPort) {
  EXPECT_EQ(*UrlOrigin("http://H.Example/x/y?z#f"), "http://h.example:80");
  EXPECT_EQ(*UrlOrigin("HTTPS://h"), "https://h:443");
  EXPECT_EQ(*UrlOrigin("http://u:p@h:8080/x"), "http://h:8080");
  EXPECT_EQ(*UrlOrigin("http://[::1]:9/x"), "http://[::1]:9");
  // Encoded bytes in the path do not move the authority.
  EXPECT_EQ(*UrlOrigin("http://h/a%2F..%2F%40evil%3A1"), "http://h:80");
  EXPECT_FALSE(UrlOrigin("not a url").ok());
}

TEST(UrlOriginTest, TemplateOriginRefusesPlaceholdersInTheAuthority) {
  for (const char* pattern : {"http://%s/x", "http://ingest-%s.example.com/x", "http://h:%s/x",
                              "http://u:%s@h/x", "%s://h/x", "http://h%s", "%s"}) {
    auto origin = TemplateOrigin(pattern, "SINK_HTTPV2_SERVICE_URL");
    EXPECT_EQ(origin.status().code(), absl::StatusCode::kInvalidArgument) << pattern;
    EXPECT_THAT(origin.status().message(), HasSubstr("SINK_HTTPV2_SERVICE_URL: a %s placeholder"))
        << pattern;
  }
  EXPECT_EQ(*TemplateOrigin("http://h/%s", "V"), "http://h:80");
  EXPECT_EQ(*TemplateOrigin("https://h:8443/a/%s/b%s", "V"), "https://h:8443");
  EXPECT_EQ(*TemplateOrigin("http://h?q=%s", "V"), "http://h:80");
  EXPECT_EQ(*TemplateOrigin("http://h#%s", "V"), "http://h:80");
  EXPECT_EQ(*TemplateOrigin("http://h", "V"), "http://h:80");
  EXPECT_THAT(TemplateOrigin("file:///etc/%s", "V").status().message(), HasSubstr("V: "));
  EXPECT_FALSE(TemplateOrigin("http://h/a b/%s", "V").ok());
}

}  // namespace
}  // namespace sluice::sink
