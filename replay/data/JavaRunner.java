// fimreplay's Java test runner (replay/scoring/sandbox.py): started by the JDK's source-file
// launcher in the program's working folder, the program on stdin. It writes the program as
// <its main class>.java there, compiles it with the JDK's compiler in this JVM, runs the class's
// main(String[]) with the program's stdout sent to stderr, and writes "passed" on the stdout it
// kept once main returns: a program that fails to compile, throws (a failed assert under -ea)
// or leaves through System.exit does not pass.
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.tools.ToolProvider;

public class JavaRunner {
    public static void main(String[] args) throws Exception {
        PrintStream verdict = System.out;
        System.setOut(System.err);
        String source = new String(System.in.readAllBytes(), StandardCharsets.UTF_8);
        System.setIn(new ByteArrayInputStream(new byte[0]));
        String name = mainClass(source);
        Path dir = Path.of("").toAbsolutePath();
        Path file = dir.resolve(name + ".java");
        Files.writeString(file, source, StandardCharsets.UTF_8);
        ByteArrayOutputStream errors = new ByteArrayOutputStream();
        int rc = ToolProvider.getSystemJavaCompiler().run(null, null, errors, "-nowarn", "-proc:none", "-encoding", "UTF-8",
                                                          "-d", dir.toString(), file.toString());
        if (rc != 0) {
            String said = errors.toString(StandardCharsets.UTF_8).strip();
            System.err.println("failed: does not compile: " + (said.isEmpty() ? "javac " + rc : said.split("\n")[0]));
            System.exit(1);
        }
        try (URLClassLoader loader = new URLClassLoader(new URL[] {dir.toUri().toURL()})) {
            Method main = loader.loadClass(name).getMethod("main", String[].class);
            main.setAccessible(true);
            main.invoke(null, (Object) new String[0]);
        } catch (InvocationTargetException e) {
            System.err.println("failed: " + e.getCause());
            System.exit(1);
        } catch (ReflectiveOperationException e) {
            System.err.println("failed: no main in class " + name + ": " + e);
            System.exit(1);
        }
        System.err.flush();
        verdict.println("passed");
        verdict.flush();
        System.exit(0);  // threads the program left running do not hold the verdict back
    }

    // The class whose main runs: the public top-level class (javac wants its file named after it),
    // else the first class declared (MultiPL-E's `class Problem`).
    static String mainClass(String source) {
        Matcher pub = Pattern.compile("(?m)^\\s*public\\s+(?:final\\s+|abstract\\s+)*class\\s+(\\w+)").matcher(source);
        if (pub.find()) return pub.group(1);
        Matcher any = Pattern.compile("(?m)^\\s*(?:final\\s+|abstract\\s+)*class\\s+(\\w+)").matcher(source);
        return any.find() ? any.group(1) : "Main";
    }
}
