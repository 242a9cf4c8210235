# vertx-rma: builds the fat jar and runs a rank program.
#   docker build -t vertx-rma .
#   docker run --rm vertx-rma                       # twisted, 4 ranks, embedded
#   docker run --rm vertx-rma -np 2 exchange        # any bin/rmarun arguments
# Cluster configuration is read at run time from conf/cluster.xml (loopback by default; mount your own
# conf/cluster.xml with the hosts' TCP-IP member list for a real cluster).
FROM maven:3.9-eclipse-temurin-17 AS build
WORKDIR /src
COPY pom.xml .
COPY src src
COPY samples samples
COPY conf conf
RUN mvn -B -ntp -q package -DskipTests

FROM eclipse-temurin:17-jre
WORKDIR /opt/vertx-rma
COPY --from=build /src/target/vertx-rma-*-all.jar target/
COPY conf conf
COPY bin bin
ENTRYPOINT ["bin/rmarun"]
CMD ["-np", "4", "twisted"]
