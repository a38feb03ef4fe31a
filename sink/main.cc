// sluice-sink: consumes a Kafka topic as a consumer-group member, optionally
// filters, pushes to one sink and commits offsets. Configured entirely by
// Firehose-compatible environment variables (see sink/config.h).
#include "sink/app.h"
#include "sink/env.h"

int main() { return sluice::sink::RunSinkApp(sluice::sink::Env::FromProcess()); }
