import type { Lang } from '../clients.js';

/**
 * Turkish for every sentence the API says to a person: problem details, job errors and the like.
 * Services write their messages in English once; the HTTP layer answers in the language of
 * `Accept-Language` (Turkish by default) through `localizeMessage`. Sentences with values are
 * patterns; a message not listed here is answered as written (the test in
 * services/platform/test/messages.unit.spec.ts lists the ones services throw).
 */
type Rule = [RegExp, (m: RegExpMatchArray) => string];

const EXACT: Record<string, string> = {
  // identity
  'Login failed. Please check your details.': 'Giriş başarısız. Lütfen bilgilerinizi kontrol edin.',
  'An account with this email address already exists.': 'Bu e-posta adresiyle bir hesap zaten var.',
  'Disposable or invalid email addresses are not accepted. Please use a permanent address.':
    'Geçici veya geçersiz e-posta adresleri kabul edilmiyor. Lütfen kalıcı bir adres kullanın.',
  'This user does not exist.': 'Böyle bir kullanıcı yok.',
  'This user is already registered.': 'Bu kullanıcı zaten kayıtlı.',
  'You cannot delete your own account.': 'Kendi hesabınızı silemezsiniz.',
  'Please give the API key a name.': 'Lütfen API anahtarına bir ad verin.',
  'This API key already exists.': 'Bu API anahtarı zaten var.',
  'This API key does not exist.': 'Böyle bir API anahtarı yok.',
  // single sign-on (issue 30)
  'Single sign-on is not set up on this server.': 'Bu sunucuda tek oturum açma (SSO) kurulu değil.',
  'The sign-in with your company account was interrupted or took too long. Please start again.':
    'Şirket hesabınızla giriş yarıda kaldı veya çok uzun sürdü. Lütfen yeniden başlayın.',
  'Your company account did not allow the sign-in.': 'Şirket hesabınız girişe izin vermedi.',
  'This sign-in was already used or has expired. Please start again.': 'Bu giriş zaten kullanıldı veya süresi doldu. Lütfen yeniden başlayın.',
  'The sign-in was refused: the identity token’s signature is not valid.': 'Giriş reddedildi: kimlik belirtecinin imzası geçerli değil.',
  'The sign-in was refused: the identity token was issued for another application.': 'Giriş reddedildi: kimlik belirteci başka bir uygulama için verilmiş.',
  'The sign-in was refused: the identity token has expired. Please start again.': 'Giriş reddedildi: kimlik belirtecinin süresi dolmuş. Lütfen yeniden başlayın.',
  'The sign-in was refused: the identity token is not valid.': 'Giriş reddedildi: kimlik belirteci geçerli değil.',
  'The company sign-in cannot be reached right now. Please try again in a moment.': 'Şirket girişine şu anda ulaşılamıyor. Lütfen biraz sonra yeniden deneyin.',
  'Your company account did not share a verified e-mail address, which Baret needs. Please ask your IT department.':
    "Şirket hesabınız Baret'in ihtiyaç duyduğu doğrulanmış bir e-posta adresini paylaşmadı. Lütfen BT biriminize danışın.",
  'An account with this e-mail address already exists. Please log in with your password.': 'Bu e-posta adresiyle bir hesap zaten var. Lütfen şifrenizle giriş yapın.',
  'This company account already signs in as another user.': 'Bu şirket hesabı zaten başka bir kullanıcı olarak giriş yapıyor.',
  'Your organisation signs in with company accounts only. Please use “Sign in with your company account”.':
    'Kuruluşunuz yalnızca şirket hesaplarıyla giriş yapıyor. Lütfen “Şirket hesabınızla giriş yapın” seçeneğini kullanın.',
  'Password login can be turned off only when single sign-on is set up on this server.':
    'Şifreyle giriş yalnızca bu sunucuda tek oturum açma (SSO) kuruluysa kapatılabilir.',
  'A user from single sign-on has no password.': 'Tek oturum açmayla gelen bir kullanıcının şifresi yoktur.',
  // organisations (issue 28)
  'This organisation does not exist.': 'Böyle bir kuruluş yok.',
  'This organisation already exists.': 'Bu kuruluş zaten var.',
  'Please give the organisation a name.': 'Lütfen kuruluşa bir ad verin.',
  'You do not belong to an organisation.': 'Bir kuruluşa üye değilsiniz.',
  'You already belong to an organisation.': 'Zaten bir kuruluşa üyesiniz.',
  'Only the managers of the organisation can do this.': 'Bunu yalnızca kuruluşun yöneticileri yapabilir.',
  'Only the managers of the organisation can see all of its jobs.': 'Kuruluşun tüm işlerini yalnızca yöneticileri görebilir.',
  'Only the managers of the organisation can see unblurred evidence.': 'Bulanıklaştırılmamış kanıtları yalnızca kuruluşun yöneticileri görebilir.',
  'This invitation does not exist or has expired.': 'Böyle bir davet yok ya da süresi doldu.',
  'This invitation has already been used.': 'Bu davet zaten kullanıldı.',
  'This invitation was sent to another email address.': 'Bu davet başka bir e-posta adresine gönderildi.',
  'This person is already a member of the organisation.': 'Bu kişi zaten kuruluşun üyesi.',
  'This person is not a member of the organisation.': 'Bu kişi kuruluşun üyesi değil.',
  'An organisation needs a manager: make another member a manager first.': 'Bir kuruluşun bir yöneticisi olmalı: önce başka bir üyeyi yönetici yapın.',
  // audit log (issue 30)
  'Only the managers of the organisation can read its audit log.': 'Kuruluşun denetim kaydını yalnızca yöneticileri okuyabilir.',
  'This cursor is not one the audit log gave.': 'Bu imleç denetim kaydının verdiği bir imleç değil.',
  'This site does not exist.': 'Böyle bir saha yok.',
  'This crew does not exist.': 'Böyle bir ekip yok.',
  'This site or crew already exists.': 'Bu saha veya ekip zaten var.',
  'Please enter a name.': 'Lütfen bir ad girin.',
  'This site does not exist in your organisation.': 'Kuruluşunuzda böyle bir saha yok.',
  'This crew does not exist in your organisation.': 'Kuruluşunuzda böyle bir ekip yok.',
  'from must be before to.': 'from, to tarihinden önce olmalı.',
  // authentication
  'Please log in to continue.': 'Devam etmek için lütfen giriş yapın.',
  'The Authorization header must be "Bearer <token>".': 'Authorization başlığı "Bearer <token>" biçiminde olmalı.',
  'This API key is not valid.': 'Bu API anahtarı geçerli değil.',
  'Your session has expired or is not valid. Please log in again.': 'Oturumunuzun süresi doldu veya geçersiz. Lütfen yeniden giriş yapın.',
  'Your session is no longer valid. Please log in again.': 'Oturumunuz artık geçerli değil. Lütfen yeniden giriş yapın.',
  'You do not have admin rights.': 'Admin yetkiniz bulunmuyor.',
  'API keys cannot manage API keys. Please log in to create, list or delete them.': 'API anahtarları API anahtarlarını yönetemez. Oluşturmak, listelemek veya silmek için lütfen giriş yapın.',
  // distributed run
  'This task does not exist.': 'Böyle bir iş türü yok.',
  'This service answers only through the Baret gateway.': 'Bu servis yalnızca Baret ağ geçidi üzerinden yanıt verir.',
  'A part of Baret is not reachable right now. Please try again in a moment.': "Baret'in bir bölümüne şu anda ulaşılamıyor. Lütfen biraz sonra yeniden deneyin.",
  // quota
  'You have reached your usage limit. Please contact an admin.': 'Kullanım limitiniz doldu. Lütfen admin ile iletişime geçin.',
  'Your organisation has used up the analyses of its plan. Please ask your organisation’s managers.': 'Kuruluşunuz planındaki analiz hakkını doldurdu. Lütfen kuruluşunuzun yöneticilerine başvurun.',
  'Please enter whole numbers greater than or equal to 0.': 'Lütfen 0 veya daha büyük tam sayılar girin.',
  'This account no longer exists.': 'Bu hesap artık yok.',
  'This job already gave its quota unit back.': 'Bu iş kota hakkını zaten iade etti.',
  // password reset, e-mail confirmation (issue 29)
  'This link is not valid or has expired. Please ask for a new one.': 'Bu bağlantı geçerli değil veya süresi doldu. Lütfen yeni bir bağlantı isteyin.',
  'No account has this address.': 'Bu adresle kayıtlı bir hesap yok.',
  'Please confirm your e-mail address first: open the link we sent you.': 'Lütfen önce e-posta adresinizi doğrulayın: size gönderdiğimiz bağlantıyı açın.',
  // notifications, webhooks, push (issue 29)
  'This notification does not exist.': 'Böyle bir bildirim yok.',
  'This webhook does not exist.': 'Böyle bir webhook yok.',
  'This unsubscribe link is not valid.': 'Bu abonelikten çıkma bağlantısı geçerli değil.',
  'Private, loopback and link-local addresses are not allowed.': 'Özel, loopback ve link-local adreslere izin verilmiyor.',
  'The URL must be a full http:// or https:// URL.': "Adres tam bir http:// veya https:// URL'si olmalı.",
  'The URL must not contain a user name or password.': 'Adres kullanıcı adı veya şifre içermemeli.',
  'You can have at most 10 webhooks. Delete one first.': 'En fazla 10 webhook tanımlayabilirsiniz. Önce birini silin.',
  'You can have at most 20 devices with notifications. Remove one first.': 'En fazla 20 cihazda bildirim alabilirsiniz. Önce birini kaldırın.',
  'This browser is already registered for notifications by another account. Turn notifications off and on again in this browser to register it for yours.':
    'Bu tarayıcı bildirimler için başka bir hesapla kayıtlı. Sizin hesabınıza kaydetmek için bu tarayıcıda bildirimleri kapatıp yeniden açın.',
  // contact
  'Please enter your email address.': 'Lütfen e-posta adresinizi girin.',
  'This message does not exist.': 'Böyle bir mesaj yok.',
  'The PDF report is available on the Pro and Enterprise plans.': 'PDF raporu Pro ve Kurumsal planlarda kullanılabilir.',
  // jobs and uploads
  'This file is not a video we can read. Please upload an MP4, MOV, MKV or WebM video.':
    'Bu dosya okuyabildiğimiz bir video değil. Lütfen MP4, MOV, MKV veya WebM video yükleyin.',
  'The payload field must be a JSON object.': 'payload alanı bir JSON nesnesi olmalı.',
  'job_type must be "auto" or a task from the catalogue.': 'job_type "auto" ya da katalogdaki bir görev olmalı.',
  'sampling must be "person" or "uniform".': 'sampling "person" ya da "uniform" olmalı.',
  'target_composites must be a whole number from 1 to 20.': 'target_composites 1 ile 20 arasında bir tam sayı olmalı.',
  'frames_per_composite must be a whole number from 2 to 8.': 'frames_per_composite 2 ile 8 arasında bir tam sayı olmalı.',
  'target_composites must be an integer from 1 to 20.': 'target_composites 1 ile 20 arasında bir tam sayı olmalı.',
  'frames_per_composite must be an integer from 2 to 8.': 'frames_per_composite 2 ile 8 arasında bir tam sayı olmalı.',
  'dedupe_by_equipment must be true or false.': 'dedupe_by_equipment true ya da false olmalı.',
  'upload_id must be the id of a finished resumable upload.': 'upload_id tamamlanmış bir devam ettirilebilir yüklemenin kimliği olmalı.',
  'Send either a video in "file" or the upload_id of a resumable upload, not both.':
    'Ya "file" alanında bir video ya da bir yüklemenin upload_id değerini gönderin; ikisini birden değil.',
  'Please choose a video to upload (the "file" field is missing).': 'Lütfen yüklenecek bir video seçin ("file" alanı eksik).',
  'Send the video as multipart/form-data with a "file" field.': 'Videoyu "file" alanıyla multipart/form-data olarak gönderin.',
  'Send exactly one video in the "file" field.': '"file" alanında tam olarak bir video gönderin.',
  'The form has too many fields: send only "file" and "payload".': 'Formda çok fazla alan var: yalnızca "file" ve "payload" gönderin.',
  'The multipart form could not be read (its boundary is missing or the body is malformed).':
    'Çok parçalı form okunamadı (sınır işareti eksik veya gövde bozuk).',
  'A form field is too long.': 'Bir form alanı çok uzun.',
  'This address is too long.': 'Bu adres çok uzun.',
  'This address is not valid.': 'Bu adres geçerli değil.',
  'This address leads out of the media folder.': 'Bu adres medya klasörünün dışına çıkıyor.',
  'The uploaded file is empty.': 'Yüklenen dosya boş.',
  'This upload does not exist.': 'Böyle bir yükleme yok.',
  'The address names more than one upload. Use /uploads/{id} as given in Location.': 'Adres birden fazla yükleme adlandırıyor. Location başlığında verilen /uploads/{id} adresini kullanın.',
  'This upload does not exist or has expired. Please upload the video again.': 'Bu yükleme yok ya da süresi doldu. Lütfen videoyu yeniden yükleyin.',
  'This upload is not finished yet: send the rest of the video first.': 'Bu yükleme henüz bitmedi: önce videonun kalanını gönderin.',
  'This evidence image does not exist.': 'Böyle bir kanıt görüntüsü yok.',
  'This job does not exist.': 'Böyle bir iş yok.',
  'This job already exists.': 'Bu iş zaten var.',
  'Only queued or running jobs can be cancelled.': 'Yalnızca sıradaki veya çalışan işler iptal edilebilir.',
  'Only finished jobs can be deleted. Cancel the job first.': 'Yalnızca bitmiş işler silinebilir. Önce işi iptal edin.',
  'Only finished jobs can be purged.': 'Yalnızca bitmiş işler temizlenebilir.',
  // reviews of findings (issue 53)
  'Only the findings of a completed analysis can be reviewed.': 'Yalnızca tamamlanmış bir analizin bulguları incelenebilir.',
  'You cannot review the findings of a job you recorded: another manager of your organisation reviews them.':
    'Kendi kaydettiğiniz bir işin bulgularını inceleyemezsiniz: bunları kuruluşunuzun başka bir yöneticisi inceler.',
  'This job has no such finding: check the worker and the equipment group.': 'Bu işte böyle bir bulgu yok: çalışanı ve ekipman grubunu kontrol edin.',
  'Only the managers of the job’s organisation can review its findings.': 'İşin bulgularını yalnızca işin kuruluşunun yöneticileri inceleyebilir.',
  'Only the owner of a personal job can review its findings.': 'Kişisel bir işin bulgularını yalnızca sahibi inceleyebilir.',
  // job errors shown in the history and the result
  'This job was stopped by an administrator.': 'Bu iş bir yönetici tarafından durduruldu.',
  'The uploaded video is no longer available. Please upload it again.': 'Yüklenen video artık mevcut değil. Lütfen yeniden yükleyin.',
  'No frames could be read from this video.': 'Bu videodan kare okunamadı.',
  'The analysis failed on our side. Your quota unit was given back; please try again.':
    'Analiz bizim tarafımızda başarısız oldu. Kota hakkınız iade edildi; lütfen yeniden deneyin.',
  'The analysis was interrupted several times while processing this video. Please try again or contact support.':
    'Bu video işlenirken analiz birkaç kez kesildi. Lütfen yeniden deneyin veya destek ile iletişime geçin.',
  'The vision model returned an answer we could not read twice in a row.': 'Görüntü modeli üst üste iki kez okuyamadığımız bir yanıt verdi.',
  'The vision model call was cancelled.': 'Görüntü modeli çağrısı iptal edildi.',
  // the HTTP layer
  'Something went wrong on our side. Please try again later.': 'Bizim tarafımızda bir sorun oluştu. Lütfen daha sonra yeniden deneyin.',
  'The service is temporarily unavailable. Please try again.': 'Hizmet geçici olarak kullanılamıyor. Lütfen yeniden deneyin.',
  'A store is not reachable yet.': 'Bir veri deposuna henüz ulaşılamıyor.',
};

const PATTERNS: Rule[] = [
  [/^The API key name must be at most (\d+) characters long\.$/, (m) => `API anahtarı adı en fazla ${m[1]} karakter olmalı.`],
  [/^Too many failed login attempts\. Please wait (\d+) minutes and try again\.$/, (m) => `Çok fazla başarısız giriş denemesi. Lütfen ${m[1]} dakika bekleyip yeniden deneyin.`],
  [/^Too many failed login attempts\. Please wait (\d+) seconds and try again\.$/, (m) => `Çok fazla başarısız giriş denemesi. Lütfen ${m[1]} saniye bekleyip yeniden deneyin.`],
  [/^Too many requests\. Please wait (\d+) (minutes|seconds) and try again\.$/, (m) => `Çok fazla istek. Lütfen ${m[1]} ${m[2] === 'minutes' ? 'dakika' : 'saniye'} bekleyip yeniden deneyin.`],
  [/^(site_id|crew_id) must be the id of a site or crew of your organisation\.$/, (m) => `${m[1]} kuruluşunuzdaki bir saha veya ekibin kimliği olmalı.`],
  [/^time_zone must be a time zone name such as Europe\/Istanbul or UTC; "(.*)" is not one\.$/s, (m) => `time_zone, Europe/Istanbul ya da UTC gibi bir saat dilimi adı olmalı; "${m[1]}" bir saat dilimi değil.`],
  [/^The work order must be at most (\d+) characters long\.$/, (m) => `İş emri en fazla ${m[1]} karakter olmalı.`],
  [/^(from|to) must be a date \(YYYY-MM-DD\) or a date-time\.$/, (m) => `${m[1]} bir tarih (YYYY-AA-GG) ya da tarih-saat olmalı.`],
  [/^No user with the email (.+)\.$/, (m) => `${m[1]} e-posta adresine sahip kullanıcı yok.`],
  [/^Please write a message of at least (\d+) characters\.$/, (m) => `Lütfen en az ${m[1]} karakterlik bir mesaj yazın.`],
  [/^The message must be at most (\d+) characters long\.$/, (m) => `Mesaj en fazla ${m[1]} karakter olmalı.`],
  [/^The video is larger than the limit of (.+)\.$/, (m) => `Video ${m[1]} sınırından büyük.`],
  [/^Unknown job type "(.*)"\. Use "auto" or a task from GET \/tasks\.$/, (m) => `Bilinmeyen iş türü "${m[1]}". "auto" ya da GET /tasks listesindeki bir görevi kullanın.`],
  [/^No route for (\S+) (.*)$/, (m) => `${m[1]} ${m[2]} için bir yol yok.`],
  [/^The vision model did not answer within (\d+(?:\.\d+)?) s \((\d+) attempts?\)\.$/, (m) => `Görüntü modeli ${m[1]} sn içinde yanıt vermedi (${m[2]} deneme).`],
  [/^The vision model endpoint kept rate limiting us \(HTTP 429\) after (\d+) attempts?\.$/, (m) => `Görüntü modeli uç noktası ${m[1]} denemeden sonra da istekleri sınırladı (HTTP 429).`],
  [/^The vision model endpoint failed with HTTP (\d+) after (\d+) attempts?\.$/, (m) => `Görüntü modeli uç noktası ${m[2]} denemeden sonra HTTP ${m[1]} hatası verdi.`],
  // Validation sentences of the HTTP layer (field names stay as they are).
  [/^(\S+) is required\.$/, (m) => `${m[1]} zorunludur.`],
  [/^(\S+) must not be empty\.$/, (m) => `${m[1]} boş olmamalı.`],
  [/^(\S+) must be at least (\d+) characters long\.$/, (m) => `${m[1]} en az ${m[2]} karakter olmalı.`],
  [/^(\S+) must be at most (\d+) characters long\.$/, (m) => `${m[1]} en fazla ${m[2]} karakter olmalı.`],
  [/^(\S+) must be a valid email address\.$/, (m) => `${m[1]} geçerli bir e-posta adresi olmalı.`],
  [/^(\S+) must be (\S+) or more\.$/, (m) => `${m[1]} en az ${m[2]} olmalı.`],
  [/^(\S+) must be (\S+) or less\.$/, (m) => `${m[1]} en fazla ${m[2]} olmalı.`],
  [/^(\S+) must be one of: (.*)\.$/, (m) => `${m[1]} şunlardan biri olmalı: ${m[2]}.`],
  [/^(\S+) is not a field we accept here\.$/, (m) => `${m[1]} burada kabul ettiğimiz bir alan değil.`],
  [/^(\S+) is not valid\.$/, (m) => `${m[1]} geçerli değil.`],
];

/** One sentence in `lang`: the Turkish of a known English sentence, else the sentence as written. */
function localizeSentence(sentence: string, lang: Lang): string {
  if (lang === 'en') return sentence;
  const exact = EXACT[sentence];
  if (exact) return exact;
  for (const [pattern, render] of PATTERNS) {
    const m = sentence.match(pattern);
    if (m) return render(m);
  }
  return sentence;
}

/**
 * A message in `lang`. Messages made of several sentences (validation answers list one per
 * problem) are translated sentence by sentence.
 */
export function localizeMessage(message: string, lang: Lang): string {
  if (lang === 'en') return message;
  const whole = localizeSentence(message, lang);
  if (whole !== message) return whole;
  const parts = message.split(/(?<=\.)\s+(?=[A-Za-z_"])/);
  return parts.length > 1 ? parts.map((p) => localizeSentence(p, lang)).join(' ') : message;
}

/** For tests: whether a sentence has a Turkish version. */
export const hasTurkish = (sentence: string): boolean => localizeSentence(sentence, 'tr') !== sentence;
