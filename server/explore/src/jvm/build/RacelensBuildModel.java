package racelens.maven;

import java.io.File;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

import javax.inject.Inject;
import javax.inject.Named;
import javax.inject.Singleton;
import javax.xml.parsers.DocumentBuilderFactory;

import org.apache.maven.AbstractMavenLifecycleParticipant;
import org.apache.maven.execution.MavenSession;
import org.apache.maven.model.Plugin;
import org.apache.maven.model.PluginExecution;
import org.apache.maven.model.Resource;
import org.apache.maven.project.DefaultDependencyResolutionRequest;
import org.apache.maven.project.DependencyResolutionException;
import org.apache.maven.project.DependencyResolutionResult;
import org.apache.maven.project.MavenProject;
import org.apache.maven.project.ProjectDependenciesResolver;
import org.eclipse.aether.DefaultRepositorySystemSession;
import org.eclipse.aether.RepositorySystem;
import org.eclipse.aether.artifact.Artifact;
import org.eclipse.aether.artifact.DefaultArtifact;
import org.eclipse.aether.collection.CollectRequest;
import org.eclipse.aether.graph.Dependency;
import org.eclipse.aether.repository.WorkspaceReader;
import org.eclipse.aether.repository.WorkspaceRepository;
import org.eclipse.aether.resolution.ArtifactResult;
import org.eclipse.aether.resolution.DependencyRequest;
import org.eclipse.aether.resolution.DependencyResult;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.xml.sax.InputSource;

/**
 * racelens's reader of a Maven build: a core extension, loaded only when racelens runs Maven
 * with {@code -Dmaven.ext.class.path=...} and {@code -Dracelens.model.out=FILE}, that writes
 * what racelens needs to compile and run one test the way the build would, then lets Maven
 * run nothing.
 *
 * <p>After Maven has read the reactor, it picks the project that holds the file named by
 * {@code racelens.model.file} (its source roots first, else the deepest base directory),
 * resolves that project's test classpath through Maven's own resolver, with reactor
 * projects standing for themselves (their sources, which racelens compiles, never a jar
 * from the local repository), and reads Surefire's effective configuration. The answer is
 * one line file, tab separated, escaped, that ends with {@code end}; racelens uses no file
 * without that line. Every project then loses its plugins, in this Maven process only, so
 * that the bindless phase racelens asks for ({@code pre-clean}) resolves and runs nothing.
 *
 * <p>Plugin configurations are read through their XML text ({@code toString()} of the DOM
 * Maven keeps), so this class links against no XML type that differs between Maven 3 and 4.
 */
@Named("racelens-build-model")
@Singleton
public class RacelensBuildModel extends AbstractMavenLifecycleParticipant {
    private static final String SUREFIRE = "org.apache.maven.plugins:maven-surefire-plugin";
    private static final String COMPILER = "org.apache.maven.plugins:maven-compiler-plugin";
    private static final String BUILD_HELPER = "org.codehaus.mojo:build-helper-maven-plugin";

    @Inject
    private ProjectDependenciesResolver resolver;

    @Inject
    private RepositorySystem repositorySystem;

    @Override
    public void afterProjectsRead(MavenSession session) {
        String out = property(session, "racelens.model.out");
        if (out == null) {
            return;
        }
        StringBuilder lines = new StringBuilder();
        try {
            describe(session, property(session, "racelens.model.file"), lines);
        } catch (RuntimeException | LinkageError e) {
            line(lines, "error", "racelens's Maven extension failed: " + e);
        }
        line(lines, "end");
        try {
            Path target = Paths.get(out);
            Path aside = Paths.get(out + ".part");
            Files.write(aside, lines.toString().getBytes(StandardCharsets.UTF_8));
            Files.move(aside, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new IllegalStateException("racelens: cannot write " + out + ": " + e, e);
        }
        for (MavenProject p : session.getProjects()) {
            p.getBuild().setPlugins(new ArrayList<Plugin>());
        }
    }

    private static String property(MavenSession session, String name) {
        String v = session.getUserProperties().getProperty(name);
        return v != null ? v : session.getSystemProperties().getProperty(name);
    }

    private void describe(MavenSession session, String file, StringBuilder lines) {
        line(lines, "tool", "maven", session.getSystemProperties().getProperty("maven.version", ""));
        List<MavenProject> projects = session.getProjects();
        for (MavenProject p : projects) {
            String id = id(p);
            line(lines, "module", id, p.getArtifactId(), p.getBasedir().getPath());
            for (String s : mainSources(p)) {
                line(lines, "src", id, "main", s);
            }
            for (String s : testSources(p)) {
                line(lines, "src", id, "test", s);
            }
            for (Resource r : p.getResources()) {
                line(lines, "res", id, "main", resolve(p, r.getDirectory()));
            }
            for (Resource r : p.getTestResources()) {
                line(lines, "res", id, "test", resolve(p, r.getDirectory()));
            }
        }
        MavenProject target = pick(projects, file, session.getTopLevelProject());
        if (target == null) {
            line(lines, "error", "the build has no projects");
            return;
        }
        line(lines, "target", id(target), "test");
        classpath(session, projects, target, lines);
        processorPath(session, target, lines);
        surefire(session, target, lines);
    }

    private static String id(MavenProject p) {
        return p.getGroupId() + ":" + p.getArtifactId();
    }

    private static String resolve(MavenProject p, String path) {
        File f = new File(path);
        return (f.isAbsolute() ? f : new File(p.getBasedir(), path)).getPath();
    }

    /** The compile source roots, with those build-helper-maven-plugin adds (it adds them only when it runs). */
    private static List<String> mainSources(MavenProject p) {
        Set<String> out = new LinkedHashSet<>();
        for (String s : p.getCompileSourceRoots()) {
            out.add(resolve(p, s));
        }
        out.addAll(buildHelper(p, "add-source"));
        return new ArrayList<>(out);
    }

    private static List<String> testSources(MavenProject p) {
        Set<String> out = new LinkedHashSet<>();
        for (String s : p.getTestCompileSourceRoots()) {
            out.add(resolve(p, s));
        }
        out.addAll(buildHelper(p, "add-test-source"));
        return new ArrayList<>(out);
    }

    private static List<String> buildHelper(MavenProject p, String goal) {
        List<String> out = new ArrayList<>();
        Plugin helper = p.getPlugin(BUILD_HELPER);
        if (helper == null) {
            return out;
        }
        for (PluginExecution e : helper.getExecutions()) {
            if (!e.getGoals().contains(goal)) {
                continue;
            }
            Element conf = xml(e.getConfiguration());
            Element sources = conf == null ? null : child(conf, "sources");
            if (sources != null) {
                for (Element s : children(sources)) {
                    out.add(resolve(p, s.getTextContent().trim()));
                }
            }
        }
        return out;
    }

    /** The project whose source roots hold {@code file}; else the deepest base directory that does. */
    private static MavenProject pick(List<MavenProject> projects, String file, MavenProject top) {
        if (file == null || file.isEmpty()) {
            return top;
        }
        Path f = Paths.get(file).toAbsolutePath().normalize();
        MavenProject best = null;
        int bestDepth = -1;
        for (MavenProject p : projects) {
            List<String> roots = new ArrayList<>(mainSources(p));
            roots.addAll(testSources(p));
            for (String r : roots) {
                Path root = Paths.get(r).toAbsolutePath().normalize();
                if (f.startsWith(root) && root.getNameCount() > bestDepth) {
                    best = p;
                    bestDepth = root.getNameCount();
                }
            }
        }
        if (best != null) {
            return best;
        }
        for (MavenProject p : projects) {
            Path base = p.getBasedir().toPath().toAbsolutePath().normalize();
            if (f.startsWith(base) && base.getNameCount() > bestDepth) {
                best = p;
                bestDepth = base.getNameCount();
            }
        }
        return best != null ? best : top;
    }

    /**
     * The test classpath, resolved as Surefire's would be (every scope), with the reactor's
     * projects answered by a workspace of their own: their POMs from the reactor, their
     * artifacts as output folders, so nothing of the reactor comes from the local repository.
     */
    private void classpath(MavenSession session, List<MavenProject> projects, MavenProject target, StringBuilder lines) {
        Map<String, MavenProject> reactor = new LinkedHashMap<>();
        for (MavenProject p : projects) {
            reactor.put(p.getGroupId() + ":" + p.getArtifactId() + ":" + p.getVersion(), p);
        }
        DefaultRepositorySystemSession repo = new DefaultRepositorySystemSession(session.getRepositorySession());
        repo.setWorkspaceReader(new Reactor(reactor, repo.getWorkspaceReader()));
        DependencyResolutionResult result;
        try {
            result = resolver.resolve(new DefaultDependencyResolutionRequest(target, repo));
        } catch (DependencyResolutionException e) {
            line(lines, "error", message(e));
            return;
        }
        for (Exception e : result.getCollectionErrors()) {
            line(lines, "error", message(e));
        }
        Set<String> seen = new LinkedHashSet<>();
        for (Dependency d : result.getDependencies()) {
            Artifact a = d.getArtifact();
            MavenProject p = reactor.get(a.getGroupId() + ":" + a.getArtifactId() + ":" + a.getBaseVersion());
            if (p != null) {
                String kind = "tests".equals(a.getClassifier()) ? "test" : "main";
                if (seen.add(id(p) + " " + kind)) {
                    line(lines, "reactor", id(p), kind);
                }
            } else if (a.getFile() != null) {
                line(lines, "cp", a.getFile().getPath());
            } else {
                StringBuilder why = new StringBuilder("cannot resolve " + a);
                for (Exception e : result.getResolutionErrors(d)) {
                    why.append(": ").append(message(e));
                }
                line(lines, "error", why.toString());
            }
        }
    }

    /** maven-compiler-plugin's {@code annotationProcessorPaths}, resolved with their dependencies. */
    private void processorPath(MavenSession session, MavenProject target, StringBuilder lines) {
        Plugin compiler = target.getPlugin(COMPILER);
        Element conf = compiler == null ? null : xml(compiler.getConfiguration());
        if (conf != null) {
            Element proc = child(conf, "proc");
            if (proc != null && "none".equals(proc.getTextContent().trim())) {
                line(lines, "proc", "none");
            }
        }
        Element paths = conf == null ? null : child(conf, "annotationProcessorPaths");
        if (paths == null) {
            return;
        }
        line(lines, "proc", "path");
        for (Element path : children(paths)) {
            String g = text(path, "groupId");
            String a = text(path, "artifactId");
            String v = text(path, "version");
            String classifier = text(path, "classifier");
            String type = text(path, "type");
            if (g == null || a == null || v == null) {
                line(lines, "error", "an annotationProcessorPaths entry of maven-compiler-plugin lacks groupId, artifactId or version");
                continue;
            }
            Artifact artifact = new DefaultArtifact(g, a, classifier == null ? "" : classifier, type == null ? "jar" : type, v);
            CollectRequest collect = new CollectRequest(new Dependency(artifact, "runtime"), target.getRemoteProjectRepositories());
            try {
                DependencyResult r = repositorySystem.resolveDependencies(session.getRepositorySession(), new DependencyRequest(collect, null));
                for (ArtifactResult ar : r.getArtifactResults()) {
                    line(lines, "proc_path", ar.getArtifact().getFile().getPath());
                }
            } catch (Exception e) {
                line(lines, "error", "annotation processor " + artifact + ": " + message(e));
            }
        }
    }

    /** Surefire's configuration for {@code default-test}: argLine, system properties, working directory, assertions. */
    private static void surefire(MavenSession session, MavenProject target, StringBuilder lines) {
        Properties props = new Properties();
        props.putAll(target.getProperties());
        props.putAll(session.getUserProperties());
        Plugin surefire = target.getPlugin(SUREFIRE);
        Element conf = surefire == null ? null : xml(surefire.getConfiguration());
        Element exec = null;
        if (surefire != null) {
            PluginExecution e = surefire.getExecutionsAsMap().get("default-test");
            exec = e == null ? null : xml(e.getConfiguration());
        }
        String argLine = setting(exec, conf, "argLine");
        if (argLine == null) {
            argLine = props.getProperty("argLine");
        }
        if (argLine != null) {
            line(lines, "argline", late(argLine, props));
        }
        // The execution's configuration already holds the plugin's (Maven merges them), and
        // wins where both set a property.
        Map<String, String> sysprops = new LinkedHashMap<>();
        for (Element source : new Element[] {conf, exec}) {
            Element old = source == null ? null : child(source, "systemProperties");
            if (old != null) {
                for (Element v : children(old)) {
                    String name = text(v, "name");
                    if ("property".equals(v.getTagName()) && name != null) {
                        String value = text(v, "value");
                        sysprops.put(name, late(value == null ? "" : value, props));
                    } else {
                        sysprops.put(v.getTagName(), late(v.getTextContent().trim(), props));
                    }
                }
            }
            Element vars = source == null ? null : child(source, "systemPropertyVariables");
            if (vars != null) {
                for (Element v : children(vars)) {
                    sysprops.put(v.getTagName(), late(v.getTextContent().trim(), props));
                }
            }
        }
        for (Map.Entry<String, String> e : sysprops.entrySet()) {
            line(lines, "sysprop", e.getKey(), e.getValue());
        }
        String dir = setting(exec, conf, "workingDirectory");
        line(lines, "workdir", dir == null ? target.getBasedir().getPath() : resolve(target, dir));
        String ea = setting(exec, conf, "enableAssertions");
        if (ea == null) {
            ea = props.getProperty("enableAssertions");
        }
        line(lines, "assertions", ea == null ? "true" : ea.trim());
    }

    /** An execution's value, else the plugin's. */
    private static String setting(Element exec, Element conf, String name) {
        for (Element e : new Element[] {exec, conf}) {
            String v = e == null ? null : text(e, name);
            if (v != null) {
                return v;
            }
        }
        return null;
    }

    /** Surefire's late replacement: {@code @{name}} from the project's and user's properties; unknown ones stay. */
    private static String late(String value, Properties props) {
        StringBuilder out = new StringBuilder();
        int i = 0;
        while (i < value.length()) {
            int start = value.indexOf("@{", i);
            int end = start < 0 ? -1 : value.indexOf('}', start);
            if (end < 0) {
                out.append(value, i, value.length());
                break;
            }
            String name = value.substring(start + 2, end);
            String v = props.getProperty(name);
            out.append(value, i, start).append(v != null ? v : value.substring(start, end + 1));
            i = end + 1;
        }
        return out.toString();
    }

    private static Element xml(Object configuration) {
        if (configuration == null) {
            return null;
        }
        try {
            DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
            f.setExpandEntityReferences(false);
            return f.newDocumentBuilder().parse(new InputSource(new StringReader(configuration.toString()))).getDocumentElement();
        } catch (Exception e) {
            return null;
        }
    }

    private static Element child(Element e, String name) {
        for (Element c : children(e)) {
            if (c.getTagName().equals(name)) {
                return c;
            }
        }
        return null;
    }

    private static String text(Element e, String name) {
        Element c = child(e, name);
        return c == null ? null : c.getTextContent().trim();
    }

    private static List<Element> children(Element e) {
        List<Element> out = new ArrayList<>();
        for (Node n = e.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element) {
                out.add((Element) n);
            }
        }
        return out;
    }

    private static String message(Throwable e) {
        StringBuilder out = new StringBuilder(String.valueOf(e.getMessage()));
        for (Throwable c = e.getCause(); c != null && c != c.getCause(); c = c.getCause()) {
            if (c.getMessage() != null && !out.toString().contains(c.getMessage())) {
                out.append(": ").append(c.getMessage());
            }
        }
        return out.toString();
    }

    private static void line(StringBuilder out, String... fields) {
        for (int i = 0; i < fields.length; i++) {
            if (i > 0) {
                out.append('\t');
            }
            String f = fields[i] == null ? "" : fields[i];
            out.append(f.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r"));
        }
        out.append('\n');
    }

    /** The reactor as a workspace: a project's POM is its file, its jar its output folder (classifier {@code tests}: its test output). */
    private static final class Reactor implements WorkspaceReader {
        private final Map<String, MavenProject> projects;
        private final WorkspaceReader next;
        private final WorkspaceRepository repository = new WorkspaceRepository("racelens-reactor");

        Reactor(Map<String, MavenProject> projects, WorkspaceReader next) {
            this.projects = projects;
            this.next = next;
        }

        @Override
        public WorkspaceRepository getRepository() {
            return repository;
        }

        @Override
        public File findArtifact(Artifact a) {
            MavenProject p = projects.get(a.getGroupId() + ":" + a.getArtifactId() + ":" + a.getBaseVersion());
            if (p == null) {
                return next == null ? null : next.findArtifact(a);
            }
            if ("pom".equals(a.getExtension())) {
                return p.getFile();
            }
            return new File("tests".equals(a.getClassifier()) ? p.getBuild().getTestOutputDirectory() : p.getBuild().getOutputDirectory());
        }

        @Override
        public List<String> findVersions(Artifact a) {
            MavenProject p = projects.get(a.getGroupId() + ":" + a.getArtifactId() + ":" + a.getBaseVersion());
            if (p != null) {
                return Collections.singletonList(p.getVersion());
            }
            return next == null ? Collections.<String>emptyList() : next.findVersions(a);
        }
    }
}
