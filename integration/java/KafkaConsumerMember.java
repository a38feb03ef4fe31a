// A consumer-group member on Apache Kafka's Java KafkaConsumer (kafka-clients,
// the client Firehose runs on), for sluice-sink's rolling-swap test and the
// real-broker benchmark. It does what a Firehose pod's consumer does, without a
// sink: subscribe with CooperativeStickyAssignor, poll, count, write, commit
// each poll batch synchronously; on SIGTERM (or SIGINT) leave the group
// cleanly (wakeup, commit, close) and exit 0.
//
// Compiled and started by integration/java_member.h; by hand:
//   javac -cp '/var/cache/sluice/kafka/libs/*' -d /tmp/km KafkaConsumerMember.java
//   java -cp "/tmp/km:/var/cache/sluice/kafka/libs/*" KafkaConsumerMember \
//     bootstrap=127.0.0.1:9092 topic=orders group=g [out=FILE] [max.records=N] \
//     [commit=sync|async] [kafka.<consumer property>=<value> ...]
//
//   out=FILE        each record as a "partition offset key" line, the batch
//                   flushed before it is committed
//   max.records=N   benchmark mode: stop consuming once N records are consumed
//                   and committed, print "bench: ..." (records/s, CPU time),
//                   then wait for SIGTERM to leave (so that the process can
//                   still be measured)
//   commit=async    commitAsync per batch instead of commitSync (as Firehose's
//                   SOURCE_KAFKA_ASYNC_COMMIT_ENABLE, and as sluice-sink
//                   commits); the last commit before leaving is synchronous
//   kafka.X=Y       consumer property X (overrides the defaults below)
//
// stdout: "member: ... holding N [topic-p,...]" after every rebalance, a
// "member: consumed N" line per second, "member: consumed all N" once
// max.records are in (before their commit), "member: left the group after N
// records" at the end. Exit codes: 0 after a clean leave, 1 on an error (its
// exception printed), 2 on bad arguments.
import java.io.BufferedWriter;
import java.io.FileWriter;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

public final class KafkaConsumerMember {
  private static final AtomicBoolean stop = new AtomicBoolean(false);
  // Benchmark mode, done consuming: waiting for SIGTERM, no consumer call
  // to wake up.
  private static volatile boolean lingering = false;
  // Offsets delivered (written and counted) but not yet committed.
  private static final Map<TopicPartition, OffsetAndMetadata> pending = new HashMap<>();
  // Commits refused in a row because the group was rebalancing.
  private static int deferred = 0;

  public static void main(String[] args) throws Exception {
    Map<String, String> opt = new HashMap<>();
    Properties props = new Properties();
    // Firehose's consumer defaults (its KafkaConsumerConfig) where they matter
    // to a group: a 10 s session, metadata every 500 ms, manual commits.
    props.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, "10000");
    props.put(ConsumerConfig.METADATA_MAX_AGE_CONFIG, "500");
    props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "500");
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    props.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG,
        CooperativeStickyAssignor.class.getName());
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
        ByteArrayDeserializer.class.getName());
    for (String arg : args) {
      int eq = arg.indexOf('=');
      if (eq <= 0) {
        System.err.println("member: expected key=value, got \"" + arg + "\"");
        System.exit(2);
      }
      String k = arg.substring(0, eq), v = arg.substring(eq + 1);
      if (k.startsWith("kafka.")) {
        props.put(k.substring(6), v);
      } else {
        opt.put(k, v);
      }
    }
    for (String required : new String[] {"bootstrap", "topic", "group"}) {
      if (!opt.containsKey(required)) {
        System.err.println("member: missing " + required + "=...");
        System.exit(2);
      }
    }
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, opt.get("bootstrap"));
    props.put(ConsumerConfig.GROUP_ID_CONFIG, opt.get("group"));
    long maxRecords = Long.parseLong(opt.getOrDefault("max.records", "0"));
    final boolean async = opt.getOrDefault("commit", "sync").equals("async");
    String topic = opt.get("topic");

    KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props);
    // A signal handler (not a shutdown hook) so that the JVM keeps running
    // until the member has left the group, and exits 0.
    sun.misc.SignalHandler onStop = sig -> {
      stop.set(true);
      if (!lingering) consumer.wakeup();
    };
    sun.misc.Signal.handle(new sun.misc.Signal("TERM"), onStop);
    sun.misc.Signal.handle(new sun.misc.Signal("INT"), onStop);

    BufferedWriter out = opt.containsKey("out")
        ? new BufferedWriter(new FileWriter(opt.get("out"), StandardCharsets.UTF_8), 1 << 16)
        : null;
    TreeSet<String> holding = new TreeSet<>();
    long[] firstAssignedNanos = {0};
    long[] firstAssignedCpu = {0};
    consumer.subscribe(Collections.singletonList(topic), new ConsumerRebalanceListener() {
      @Override
      public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
        if (firstAssignedNanos[0] == 0 && !partitions.isEmpty()) {
          firstAssignedNanos[0] = System.nanoTime();
          firstAssignedCpu[0] = cpuNanos();
        }
        for (TopicPartition tp : partitions) holding.add(tp.toString());
        report("assigned", partitions);
      }

      // A commit refused while the group rebalanced is still pending: commit
      // what was delivered of the partitions that go before they go (a
      // revocation callback may commit; the KafkaConsumer javadoc's pattern).
      @Override
      public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
        Map<TopicPartition, OffsetAndMetadata> going = new HashMap<>();
        for (TopicPartition tp : partitions) {
          holding.remove(tp.toString());
          OffsetAndMetadata o = pending.remove(tp);
          if (o != null) going.put(tp, o);
        }
        if (!going.isEmpty()) {
          consumer.commitSync(going);
          System.out.println("member: committed " + going.size() + " revoked partition(s)");
        }
        report("revoked", partitions);
      }

      // Expelled: the new owner reads again from the last commit.
      @Override
      public void onPartitionsLost(Collection<TopicPartition> partitions) {
        for (TopicPartition tp : partitions) {
          holding.remove(tp.toString());
          pending.remove(tp);
        }
        report("lost", partitions);
      }

      private void report(String what, Collection<TopicPartition> partitions) {
        System.out.println("member: " + what + " " + partitions.size() + ", holding "
            + holding.size() + " [" + String.join(",", holding) + "]");
        System.out.flush();
      }
    });

    long count = 0;
    long nextReport = System.nanoTime();
    long lastCommitNanos = 0, lastCommitCpu = 0;
    int rc = 0;
    try {
      while (!stop.get() && (maxRecords == 0 || count < maxRecords)) {
        ConsumerRecords<byte[], byte[]> records;
        try {
          records = consumer.poll(Duration.ofMillis(100));
        } catch (WakeupException e) {
          break;  // the stop request; nothing of this poll was handed out
        }
        if (!records.isEmpty()) {
          if (out != null) {
            StringBuilder lines = new StringBuilder(records.count() * 24);
            for (ConsumerRecord<byte[], byte[]> r : records) {
              lines.append(r.partition()).append(' ').append(r.offset()).append(' ')
                  .append(r.key() == null ? "-" : new String(r.key(), StandardCharsets.UTF_8))
                  .append('\n');
            }
            out.write(lines.toString());
            out.flush();  // delivered before committed, as a sink
          }
          count += records.count();
          if (maxRecords > 0 && count >= maxRecords) {
            System.out.println("member: consumed all " + count);  // before the commit
            System.out.flush();
          }
          for (TopicPartition tp : records.partitions()) {
            List<ConsumerRecord<byte[], byte[]>> part = records.records(tp);
            pending.put(tp, new OffsetAndMetadata(part.get(part.size() - 1).offset() + 1));
          }
        }
        if (!pending.isEmpty() && async) {
          consumer.commitAsync(new HashMap<>(pending), (offsets, e) -> {
            if (e != null) System.out.println("member: async commit failed: " + e);
          });
          pending.clear();
        } else if (!pending.isEmpty() && commit(consumer)) {
          lastCommitNanos = System.nanoTime();
          lastCommitCpu = cpuNanos();
        }
        if (System.nanoTime() >= nextReport) {
          System.out.println("member: consumed " + count);
          System.out.flush();
          nextReport = System.nanoTime() + 1_000_000_000L;
        }
      }
    } catch (Exception e) {
      System.out.println("member: error: " + e);
      e.printStackTrace(System.out);
      rc = 1;
    }
    // Done consuming: a SIGTERM from now on has no poll to wake up.
    if (maxRecords > 0 && count >= maxRecords && rc == 0) lingering = true;
    if (async && rc == 0) {
      // The last positions, synchronously (earlier async commits complete first).
      Map<TopicPartition, OffsetAndMetadata> last = new HashMap<>();
      for (TopicPartition tp : consumer.assignment()) {
        last.put(tp, new OffsetAndMetadata(consumer.position(tp)));
      }
      pending.putAll(last);
      if (commit(consumer)) {
        lastCommitNanos = System.nanoTime();
        lastCommitCpu = cpuNanos();
      }
    }
    if (maxRecords > 0 && firstAssignedNanos[0] != 0 && lastCommitNanos > 0) {
      double s = (lastCommitNanos - firstAssignedNanos[0]) / 1e9;
      double cpu = (lastCommitCpu - firstAssignedCpu[0]) / 1e9;
      System.out.printf("bench: %d records in %.3f s from the first assignment to the last commit,"
          + " %.0f records/s, CPU %.3f s, %.3f us a record%n", count, s, count / s, cpu,
          cpu * 1e6 / Math.max(count, 1));
    }
    while (lingering && !stop.get()) Thread.sleep(20);
    try {
      consumer.close(CloseOptions.timeout(Duration.ofSeconds(30)));  // sends LeaveGroup
    } catch (Exception e) {
      System.out.println("member: close failed: " + e);
      rc = 1;
    }
    if (out != null) out.close();
    System.out.println("member: left the group after " + count + " records");
    System.out.flush();
    System.exit(rc);
  }

  // commitSync of what was delivered (the pending offsets); true when
  // committed. While the group rebalances the commit is refused
  // (RebalanceInProgressException): the offsets stay pending, for the
  // revocation callback or the commit after the next poll. A wakeup meant for
  // the poll can land here instead: commit again rather than leave the batch
  // to the next owner.
  private static boolean commit(KafkaConsumer<byte[], byte[]> consumer) {
    for (int attempt = 0;; ++attempt) {
      try {
        consumer.commitSync(pending);
        pending.clear();
        if (deferred > 0) {
          System.out.println("member: committed after " + deferred + " deferred commit(s)");
          deferred = 0;
        }
        return true;
      } catch (RebalanceInProgressException e) {
        if (deferred++ == 0) System.out.println("member: commit deferred, the group is rebalancing");
        return false;
      } catch (WakeupException e) {
        if (attempt >= 2) throw e;
      }
    }
  }

  // CPU time of the whole JVM (all threads: the consumer's network thread,
  // JIT and GC too), in ns.
  private static long cpuNanos() {
    java.lang.management.OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
    if (os instanceof com.sun.management.OperatingSystemMXBean) {
      return ((com.sun.management.OperatingSystemMXBean) os).getProcessCpuTime();
    }
    return 0;
  }
}
