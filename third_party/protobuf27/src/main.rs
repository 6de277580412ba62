//! Prints the install prefix of the protobuf that the `protobuf-src` crate's build script
//! compiled and installed (bin/protoc, include/, lib/ with lib/cmake/{protobuf,absl,utf8_range}).

fn main() {
    let include = protobuf_src::include();
    let prefix = include
        .parent()
        .expect("protobuf-src's include directory has a parent: the install prefix");
    println!("{}", prefix.display());
}
