# vertx-rma: the runnable jar, bin/rmarun and conf/ on a Java 17 runtime, run as a non-root user.
#   docker build -t vertx-rma .
#   docker run --rm vertx-rma                         # twisted, 4 ranks, embedded in one container
#   docker run --rm vertx-rma -np 2 exchange          # any bin/rmarun arguments
# One job over several containers: give each the job's members in the environment (docs/running-jobs.md,
# "Docker"; docker/entrypoint.sh lists the variables). Its ports are fixed: 5701 (Hazelcast),
# 5702 (the clustered event bus), 5703 (the data plane).

# ---- build: dependencies first, in a layer of their own that only a change of pom.xml rebuilds
FROM maven:3.9-eclipse-temurin-17 AS build
WORKDIR /src
COPY pom.xml .
RUN mvn -B -ntp -q dependency:go-offline
COPY conf conf
COPY samples/java samples/java
COPY src/main src/main
RUN mvn -B -ntp -q package -Dmaven.test.skip=true -Dmaven.javadoc.skip=true -Dmaven.source.skip=true

# ---- run
FROM eclipse-temurin:17-jre
RUN useradd --system --uid 10001 --no-create-home --home-dir /opt/vertx-rma --shell /usr/sbin/nologin rma
WORKDIR /opt/vertx-rma
COPY --from=build /src/target/vertx-rma-*-all.jar target/
COPY conf conf
COPY bin bin
COPY docker/entrypoint.sh docker/entrypoint.sh
USER rma
EXPOSE 5701 5702 5703
ENTRYPOINT ["/opt/vertx-rma/docker/entrypoint.sh"]
CMD ["-np", "4", "twisted"]
