package racelens.build;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.stream.Stream;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.commons.ClassRemapper;
import org.objectweb.asm.commons.Remapper;

/**
 * Build-time tool: writes racelens-agent.jar from the compiled agent classes and the ASM jars,
 * with every {@code org/objectweb/asm/**} reference relocated to {@code racelens/shaded/asm/**}.
 *
 * <pre>java -cp asm.jar:asm-commons.jar:&lt;dir&gt; racelens.build.Shade out.jar classes-dir asm.jar asm-commons.jar asm-tree.jar</pre>
 *
 * The output is deterministic: entries sorted by name, fixed timestamps.
 */
public final class Shade {
    private Shade() {}

    static final String FROM = "org/objectweb/asm/";
    static final String TO = "racelens/shaded/asm/";
    static final LocalDateTime TIME = LocalDateTime.of(2000, 1, 1, 0, 0);

    static final Remapper REMAPPER = new Remapper() {
        @Override
        public String map(String internalName) {
            return internalName.startsWith(FROM) ? TO + internalName.substring(FROM.length()) : internalName;
        }
    };

    public static void main(String[] args) throws IOException {
        if (args.length < 2) {
            System.err.println("usage: Shade <out.jar> <agent classes dir> <asm jars...>");
            System.exit(2);
        }
        Path out = Paths.get(args[0]);
        Path classes = Paths.get(args[1]);
        Map<String, byte[]> entries = new TreeMap<>();
        List<Path> files = new ArrayList<>();
        try (Stream<Path> walk = Files.walk(classes)) {
            walk.filter(Files::isRegularFile).forEach(files::add);
        }
        for (Path f : files) {
            String name = classes.relativize(f).toString().replace('\\', '/');
            byte[] bytes = Files.readAllBytes(f);
            if (name.endsWith(".class")) {
                entries.put(name, relocate(bytes));
            } else {
                entries.put(name, bytes);
            }
        }
        for (int i = 2; i < args.length; i++) {
            try (JarFile jar = new JarFile(args[i])) {
                for (JarEntry e : java.util.Collections.list(jar.entries())) {
                    String name = e.getName();
                    if (!name.startsWith(FROM) || !name.endsWith(".class")) {
                        continue; // module-info, manifests, licences
                    }
                    try (InputStream in = jar.getInputStream(e)) {
                        entries.put(TO + name.substring(FROM.length()), relocate(in.readAllBytes()));
                    }
                }
            }
        }
        Manifest mf = new Manifest();
        Attributes a = mf.getMainAttributes();
        a.put(Attributes.Name.MANIFEST_VERSION, "1.0");
        a.putValue("Premain-Class", "racelens.agent.Agent");
        a.putValue("Main-Class", "racelens.agent.Main");
        a.putValue("Boot-Class-Path", "racelens-agent.jar");
        a.putValue("Can-Retransform-Classes", "true");
        a.putValue("Can-Redefine-Classes", "true");
        ByteArrayOutputStream mfBytes = new ByteArrayOutputStream();
        mf.write(mfBytes);
        Path tmp = out.resolveSibling(out.getFileName() + ".tmp");
        try (OutputStream fo = Files.newOutputStream(tmp); JarOutputStream jar = new JarOutputStream(fo)) {
            put(jar, "META-INF/", null);
            put(jar, "META-INF/MANIFEST.MF", mfBytes.toByteArray());
            for (Map.Entry<String, byte[]> e : entries.entrySet()) {
                put(jar, e.getKey(), e.getValue());
            }
        }
        Files.move(tmp, out, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }

    static void put(JarOutputStream jar, String name, byte[] bytes) throws IOException {
        JarEntry e = new JarEntry(name);
        e.setTimeLocal(TIME);
        jar.putNextEntry(e);
        if (bytes != null) {
            jar.write(bytes);
        }
        jar.closeEntry();
    }

    static byte[] relocate(byte[] bytes) {
        ClassReader r = new ClassReader(bytes);
        ClassWriter w = new ClassWriter(0);
        r.accept(new ClassRemapper(w, REMAPPER), 0);
        return w.toByteArray();
    }
}
