package example;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.vertxrma.JobOptions;
import dev.vertxrma.Rma;
import dev.vertxrma.samples.services.CounterService;
import io.vertx.core.Vertx;
import io.vertx.spi.cluster.hazelcast.ConfigUtil;
import java.io.File;
import java.io.IOException;
import java.net.URL;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.Test;

/** What a project that depends on dev.vertxrma:vertx-rma gets. */
class ConsumerTest {

  @Test
  void theLibraryBringsNoDuplicateClasses() throws IOException {
    Map<String, String> owner = new HashMap<>();
    List<String> duplicates = new ArrayList<>();
    String[] entries = System.getProperty("java.class.path").split(File.pathSeparator);
    for (String path : entries) {
      if (!path.endsWith(".jar")) {
        continue;
      }
      try (ZipFile jar = new ZipFile(path)) {
        for (ZipEntry e : Collections.list(jar.entries())) {
          String name = e.getName();
          if (!name.endsWith(".class") || name.startsWith("META-INF/") || name.endsWith("module-info.class")) {
            continue;
          }
          String before = owner.putIfAbsent(name, path);
          if (before != null) {
            duplicates.add(name + " in " + new File(before).getName() + " and " + new File(path).getName());
          }
        }
      }
    }
    assertTrue(owner.containsKey("dev/vertxrma/Win.class"), "the library is on the class path");
    assertTrue(!owner.containsKey("dev/vertxrma/samples/Twisted.class") || !owner.get("dev/vertxrma/samples/Twisted.class")
        .contains("vertx-rma"), "samples are not in the library jar");
    assertEquals(List.of(), duplicates.subList(0, Math.min(20, duplicates.size())),
        duplicates.size() + " classes defined twice");
  }

  @Test
  void theLibraryBringsNoUsageReporting() {
    // this project's JVMs run without -Dchronicle.analytics.disable (see pom.xml)
    assertEquals(null, System.getProperty("chronicle.analytics.disable"));
    assertThrows(ClassNotFoundException.class, () -> Class.forName("net.openhft.chronicle.analytics.Analytics"),
        "Chronicle's analytics came with the library");
    assertFalse(net.openhft.chronicle.core.analytics.AnalyticsFacade.isEnabled(), "Chronicle reports analytics enabled");
  }

  @Test
  void theApplicationsClusterXmlIsTheOnlyOneAndStaysItsOwn() throws IOException {
    Enumeration<URL> found = getClass().getClassLoader().getResources("cluster.xml");
    List<URL> all = Collections.list(found);
    assertEquals(1, all.size(), "cluster.xml on the class path: " + all);
    assertTrue(all.get(0).toString().contains("/target/classes/"), all.get(0).toString());
    assertEquals("consumer-app", ConfigUtil.loadConfig().getClusterName());
    assertTrue(getClass().getClassLoader().getResource("dev/vertxrma/cluster.xml") != null,
        "the library's own default is under its own name");
  }

  @Test
  void theCounterServiceSampleServesFromAnEmbeddedWorld() throws Exception {
    Vertx vertx = Vertx.vertx();
    try {
      JobOptions options = new JobOptions().setNp(4).setJobName("consumer-service");
      Rma.world(vertx, options)
          .compose(world -> new CounterService().run(vertx, world, List.of("--requests", "400", "--metrics"))
              .eventually(world::close))
          .toCompletionStage().toCompletableFuture().get(120, TimeUnit.SECONDS);
    } finally {
      vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }
  }
}
