// fimreplay's Java test runner (replay/scoring/runners.py, sandbox.py): started by the JDK's
// source-file launcher in the program's working folder. It reads on stdin the header line
// "<bytes of the program> <mode>", the program and, in mode "stdio", the program's input. It
// writes the program as <its main class>.java, compiles it with the JDK's compiler in this JVM,
// runs the class's main(String[]) and writes "passed" on the stdout it kept once main returns,
// followed in mode "stdio" by what the program printed. In mode "check" the program's output
// goes to stderr and a program that fails to compile, throws (a failed assert under -ea) or
// leaves through System.exit does not pass; in mode "stdio" an exit with status 0 is an end.
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
import java.security.Permission;
import java.util.Arrays;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.tools.ToolProvider;

public class JavaRunner {
    static final class Exited extends SecurityException {
        final int status;

        Exited(int status) {
            super("exit " + status);
            this.status = status;
        }
    }

    public static void main(String[] args) throws Exception {
        PrintStream verdict = System.out;
        byte[] data = System.in.readAllBytes();
        int nl = 0;
        while (data[nl] != '\n') nl++;
        String[] head = new String(data, 0, nl, StandardCharsets.US_ASCII).split(" ");
        int size = Integer.parseInt(head[0]);
        boolean stdio = head.length > 1 && head[1].equals("stdio");
        String source = new String(data, nl + 1, size, StandardCharsets.UTF_8);
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        System.setIn(new ByteArrayInputStream(stdio ? Arrays.copyOfRange(data, nl + 1 + size, data.length) : new byte[0]));
        System.setOut(stdio ? new PrintStream(printed, false, StandardCharsets.UTF_8) : System.err);
        String name = mainClass(source);
        Path dir = Path.of("").toAbsolutePath();
        Path file = dir.resolve(name + ".java");
        Files.writeString(file, source, StandardCharsets.UTF_8);
        ByteArrayOutputStream errors = new ByteArrayOutputStream();
        int rc = ToolProvider.getSystemJavaCompiler().run(null, null, errors, "-nowarn", "-proc:none", "-encoding", "UTF-8",
                                                          "-classpath", System.getProperty("java.class.path"), "-d", dir.toString(),
                                                          file.toString());
        if (rc != 0) {
            String said = errors.toString(StandardCharsets.UTF_8).strip();
            fail("does not compile: " + (said.isEmpty() ? "javac " + rc : said.split("\n")[0]));
        }
        if (stdio) {
            System.setSecurityManager(new SecurityManager() {
                @Override public void checkExit(int status) { throw new Exited(status); }
                @Override public void checkPermission(Permission perm) { }
                @Override public void checkPermission(Permission perm, Object context) { }
            });
        }
        try (URLClassLoader loader = new URLClassLoader(new URL[] {dir.toUri().toURL()})) {
            Method main = loader.loadClass(name).getMethod("main", String[].class);
            main.setAccessible(true);
            main.invoke(null, (Object) new String[0]);
        } catch (InvocationTargetException e) {
            if (!(e.getCause() instanceof Exited && ((Exited) e.getCause()).status == 0)) fail(String.valueOf(e.getCause()));
        } catch (ReflectiveOperationException e) {
            fail("no main in class " + name + ": " + e);
        }
        System.out.flush();
        System.err.flush();
        verdict.write("passed\n".getBytes(StandardCharsets.US_ASCII));
        verdict.write(printed.toByteArray());
        verdict.flush();
        Runtime.getRuntime().halt(0);  // threads the program left running do not hold the verdict back
    }

    static void fail(String why) {
        System.err.println("failed: " + why);
        System.err.flush();
        Runtime.getRuntime().halt(1);
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
